/// An analytics event a feature module can track.
///
/// Feature modules declare one enum per screen and conform it to this protocol:
///
/// ```swift
/// enum EpisodeListEvent: TrackingEventContract {
///     case screenViewed
///     case episodeSelected(id: String)
///
///     var name: String {
///         switch self {
///         case .screenViewed: "episode_list_viewed"
///         case .episodeSelected: "episode_list_episode_selected"
///         }
///     }
///
///     var properties: [String: String] {
///         switch self {
///         case .screenViewed: [:]
///         case .episodeSelected(let id): ["episode_id": id]
///         }
///     }
/// }
/// ```
public protocol TrackingEventContract: Sendable {
    /// The event name: lowercase snake_case, `{screen}_{action}` (for example `episode_list_viewed`).
    var name: String { get }
    /// The event's properties. Values are strings here; the tracking plan declares their real types.
    var properties: [String: String] { get }
}
