import Tracking

/// What the episode list screen reports about itself.
public protocol EpisodeListTrackerContract: Sendable {
    func trackScreenViewed()
    func trackEpisodeSelected(episodeID: String, position: Int)
}

/// Turns episode list screen actions into analytics events.
///
/// `EpisodeListEvent` is generated at build time from the feature's tracking plan
/// (`TrackingPlans/episode.json`) by TallyPlanPlugin: a misspelled event or a property of the wrong
/// type does not compile.
public struct EpisodeListTracker: EpisodeListTrackerContract {
    private let tracker: TrackerContract

    public init(tracker: TrackerContract) {
        self.tracker = tracker
    }

    public func trackScreenViewed() {
        tracker.track(EpisodeListEvent.viewed)
    }

    public func trackEpisodeSelected(episodeID: String, position: Int) {
        tracker.track(EpisodeListEvent.episodeSelected(episodeID: episodeID, position: position))
    }
}
