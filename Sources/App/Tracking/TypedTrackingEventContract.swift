/// An event that knows its properties' types: tally receives them as typed values, and the
/// tracking plan checks them with plain JSON Schema semantics (a `"3"` is not an `integer`).
///
/// The events `tally schema generate --swift` writes conform to it. It provides
/// ``TrackingEventContract/properties``: the same values as text, for ``TrackedEvent`` and
/// `TrackerMock`.
///
/// ```swift
/// enum EpisodeListEvent: TypedTrackingEventContract {
///     case episodeSelected(id: String, position: Int)
///
///     var name: String { "episode_list_episode_selected" }
///
///     var typedProperties: [String: TrackingValue] {
///         switch self {
///         case .episodeSelected(let id, let position): ["episode_id": .string(id), "position": .integer(position)]
///         }
///     }
/// }
/// ```
public protocol TypedTrackingEventContract: TrackingEventContract {
    /// The event's properties with their types.
    var typedProperties: [String: TrackingValue] { get }
}

extension TypedTrackingEventContract {
    /// ``typedProperties`` as text (``TrackingValue/description``).
    public var properties: [String: String] { typedProperties.mapValues(\.description) }
}
