import Tracking

/// The analytics events of the episode list screen.
enum EpisodeListEvent: TrackingEventContract {
    case screenViewed
    case episodeSelected(episodeID: String, position: Int)

    var name: String {
        switch self {
        case .screenViewed: "episode_list_viewed"
        case .episodeSelected: "episode_list_episode_selected"
        }
    }

    var properties: [String: String] {
        switch self {
        case .screenViewed:
            [:]
        case .episodeSelected(let episodeID, let position):
            ["episode_id": episodeID, "position": String(position)]
        }
    }
}
