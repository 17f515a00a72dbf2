/// The episode list screen's state and actions.
///
/// The screen calls ``onAppear()`` when it is shown and ``select(_:)`` when a row is tapped;
/// the view model reports both through its tracker.
@MainActor
public final class EpisodeListViewModel {
    public private(set) var episodes: [Episode]
    public private(set) var selectedEpisode: Episode?
    private let tracker: any EpisodeListTrackerContract

    public init(episodes: [Episode], tracker: any EpisodeListTrackerContract) {
        self.episodes = episodes
        self.tracker = tracker
    }

    public func onAppear() {
        tracker.trackScreenViewed()
    }

    public func select(_ episode: Episode) {
        guard let position = episodes.firstIndex(of: episode) else { return }
        selectedEpisode = episode
        tracker.trackEpisodeSelected(episodeID: episode.id, position: position)
    }
}
