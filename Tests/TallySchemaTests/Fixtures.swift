import Foundation
import TallyCore
import TallySchema
import TallyTestSupport

/// Paths of the repository's example registry and temporary registries written by tests.
enum Fixtures {
    static var examplesRegistry: String {
        ConformanceData.repositoryRoot!.appendingPathComponent("Examples/registry").path
    }

    static func loadExamples() throws -> SchemaRegistry {
        try SchemaRegistry.load(directory: examplesRegistry)
    }

    /// Writes `files` (name → JSON text) into a new temporary directory.
    static func registry(_ files: [String: String]) throws -> String {
        let directory = NSTemporaryDirectory() + "tally-registry-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, text) in files {
            try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }
        return directory
    }

    static func event(
        _ name: String,
        _ properties: [String: PropertyValue] = [:],
        feature: String? = nil,
        version: String? = nil,
        fromStrings: Bool = false
    ) -> EventEnvelope {
        var generator = UUIDv7Generator(seed: 1)
        return EventEnvelope(
            eventID: generator.next(at: .now()),
            name: name,
            feature: feature,
            properties: EventProperties(properties),
            occurredAt: .now(),
            schemaVersion: version,
            stringProperties: fromStrings
        )
    }
}
