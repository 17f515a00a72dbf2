package import TallyCore

/// What a store holds over a window, aggregated the same way by every store: what ``StatusReport``
/// compares with the plans. PostgreSQL computes it in one pass over the window's events; the file
/// store by reading its files.
package struct StatusObservations: Sendable, Equatable {
    /// An event name and the `schema_version` stored with it ("" when none).
    package struct EventVersion: Sendable, Hashable, Comparable {
        package var name: String
        package var version: String

        package init(name: String, version: String) {
            self.name = name
            self.version = version
        }

        package static func < (lhs: EventVersion, rhs: EventVersion) -> Bool {
            (lhs.name, lhs.version) < (rhs.name, rhs.version)
        }
    }

    /// How often, first and last time.
    package struct Seen: Sendable, Equatable {
        package var count: Int
        package var first: Timestamp
        package var last: Timestamp
    }

    /// A count and the smallest event id among them (byte order): an example that both stores agree on.
    package struct Sample: Sendable, Equatable {
        package var count: Int
        package var example: String

        package mutating func add(_ other: Sample) {
            count += other.count
            if other.example < example { example = other.example }
        }
    }

    /// Where an event no plan declares came from.
    package struct Origins: Sendable, Equatable {
        package var appVersions: Set<String> = []
        /// `context.platform`.
        package var sources: Set<String> = []
        package var features: Set<String> = []
    }

    /// Every event name in the window.
    package var seen: [String: Seen] = [:]
    /// Planned events: per name and version, per property, per value class (``ValueClass``).
    package var propertyClasses: [EventVersion: [String: [String: Sample]]] = [:]
    /// Planned events: per name and version, events lacking each required property.
    package var missingRequired: [EventVersion: [String: Sample]] = [:]
    /// Planned events: events per name and version.
    package var versionCounts: [EventVersion: Int] = [:]
    /// Events no plan declares: where they came from.
    package var origins: [String: Origins] = [:]
    /// Planned events not seen in the window: when they were last seen at all.
    package var lastSeenEver: [String: Timestamp] = [:]
    /// Failed events in the window, by reason.
    package var rejected: [String: Int] = [:]
    /// Events read in the window (each once).
    package var eventsRead = 0

    package init() {}
}
