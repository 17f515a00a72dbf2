import Foundation
import TallyCore
import TallyFileStore
package import TallySchema

/// ``StatusObservations`` from the file store: one read of its event files (the days before and
/// after the window too, for when never-seen events were last seen), and its dead-letter files for
/// the failed events. An event stored twice counts once.
package struct FileStoreStatusReader: Sendable {
    private let reader: FileStoreReader

    /// A reader of the store under `directory`.
    package init(directory: String) {
        reader = FileStoreReader(directory: directory)
    }

    /// Reads what the store holds in `window`, for `registry`'s plans.
    package func observe(_ window: StatusWindow, registry: SchemaRegistry) throws -> StatusObservations {
        var observations = StatusObservations()
        // The plans' events (tally's built-in ones are not checked, as in PostgreSQL).
        let planned = Set(registry.eventNames)
        var seenIDs = Set<EventID>()
        var currentDay: CivilDate?
        for segment in try reader.layout.eventSegments() {
            if segment.day != currentDay {
                seenIDs.removeAll(keepingCapacity: true)
                currentDay = segment.day
            }
            _ = try reader.forEachEvent(inSegment: segment) { event in
                guard seenIDs.insert(event.eventID).inserted else { return }
                guard window.contains(event.occurredAt) else {
                    if planned.contains(event.name) {
                        let last = observations.lastSeenEver[event.name]
                        if last.map({ $0 < event.occurredAt }) ?? true {
                            observations.lastSeenEver[event.name] = event.occurredAt
                        }
                    }
                    return
                }
                Self.add(event, to: &observations, registry: registry, planned: planned)
            }
        }
        observations.rejected = rejected(window)
        return observations
    }

    private static func add(
        _ event: EventEnvelope,
        to observations: inout StatusObservations,
        registry: SchemaRegistry,
        planned: Set<String>
    ) {
        observations.eventsRead += 1
        if var seen = observations.seen[event.name] {
            seen.count += 1
            if event.occurredAt < seen.first { seen.first = event.occurredAt }
            if seen.last < event.occurredAt { seen.last = event.occurredAt }
            observations.seen[event.name] = seen
        } else {
            observations.seen[event.name] = .init(count: 1, first: event.occurredAt, last: event.occurredAt)
        }
        guard planned.contains(event.name), let latest = registry.event(event.name) else {
            var origins = observations.origins[event.name] ?? StatusObservations.Origins()
            if let version = event.context?.appVersion { origins.appVersions.insert(version) }
            if let platform = event.context?.platform { origins.sources.insert(platform) }
            if let feature = event.feature { origins.features.insert(feature) }
            observations.origins[event.name] = origins
            return
        }
        let key = StatusObservations.EventVersion(name: event.name, version: event.schemaVersion ?? "")
        let example = event.eventID.description
        observations.versionCounts[key, default: 0] += 1
        event.properties.forEach { property, value in
            observations.propertyClasses[key, default: [:]][property, default: [:]][
                ValueClass.of(value),
                default: .init(count: 0, example: example)
            ].add(.init(count: 1, example: example))
        }
        let schema = registry.event(event.name, version: event.schemaVersion.flatMap(SchemaVer.init)) ?? latest
        for required in RequiredProperties.of(schema) where event.properties[required] == nil {
            observations.missingRequired[key, default: [:]][required, default: .init(count: 0, example: example)].add(
                .init(count: 1, example: example)
            )
        }
    }

    /// Dead letters and collector rejects (`dead-letter/*.ndjson`) that failed in the window, by reason.
    package func rejected(_ window: StatusWindow) -> [String: Int] {
        var rejected: [String: Int] = [:]
        let directory = reader.layout.deadLetterDirectory
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return rejected }
        for name in names.sorted() where name.hasSuffix(".ndjson") {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name) else { continue }
            for line in data.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
                guard let value = try? JSONParser.parse(line), let reason = value["reason"]?.stringValue,
                    let failedAt = value["failed_at"]?.stringValue.flatMap({ Timestamp(rfc3339: $0) }),
                    window.contains(failedAt)
                else { continue }
                rejected[reason, default: 0] += 1
            }
        }
        return rejected
    }
}

/// The properties an event's plan requires.
enum RequiredProperties {
    static func of(_ schema: EventSchema) -> [String] {
        guard case .array(let names)? = schema.properties.source["required"] else { return [] }
        return names.compactMap(\.stringValue)
    }
}
