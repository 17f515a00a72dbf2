import Tracking

/// What the episode list screen reports about itself.
public protocol EpisodeListTrackerContract: Sendable {
    func trackScreenViewed()
    func trackEpisodeSelected(episodeID: String, position: Int)
}

/// Turns episode list screen actions into analytics events.
public struct EpisodeListTracker: EpisodeListTrackerContract {
    private let tracker: TrackerContract

    public init(tracker: TrackerContract) {
        self.tracker = tracker
    }

    public func trackScreenViewed() {
        tracker.track(EpisodeListEvent.screenViewed)
    }

    public func trackEpisodeSelected(episodeID: String, position: Int) {
        tracker.track(EpisodeListEvent.episodeSelected(episodeID: episodeID, position: position))
    }
}
