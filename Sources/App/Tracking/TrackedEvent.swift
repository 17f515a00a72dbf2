/// A tracked event as a plain value: its name and properties.
///
/// `TrackerMock` records these, so tests can compare what a feature tracked with `==`.
public struct TrackedEvent: Hashable, Sendable, Codable {
    /// The event name, as given by ``TrackingEventContract/name``.
    public let name: String
    /// The event properties, as given by ``TrackingEventContract/properties``.
    public let properties: [String: String]

    /// Creates a tracked event value.
    public init(name: String, properties: [String: String]) {
        self.name = name
        self.properties = properties
    }

    /// Captures the name and properties of any event.
    public init(_ event: any TrackingEventContract) {
        self.init(name: event.name, properties: event.properties)
    }
}

extension TrackedEvent: TrackingEventContract {}
