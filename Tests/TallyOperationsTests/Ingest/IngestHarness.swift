import Foundation
import TallyCore
import TallyOperations
import TallyPipeline
import TallyPipelineTesting
import TallySchema

/// Runs ingest jobs into an in-memory sink and reads back the rejects file.
struct IngestHarness {
    struct Reject: Equatable {
        var line: Int
        var reason: String
    }

    let directory: String

    init() throws {
        directory = NSTemporaryDirectory() + "tally-ingest-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func cleanUp() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func write(_ name: String, _ bytes: [UInt8]) -> String {
        let path = directory + "/" + name
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    /// Ingests `path`; returns the report, the stored events and the rejects.
    func ingest(_ path: String, registry: SchemaRegistry? = nil, maxLineLength: Int = 1 << 20) async throws -> (
        report: IngestReport, stored: [EventEnvelope], rejects: [Reject]
    ) {
        let sink = InMemorySink()
        let pipeline = EventPipeline(sinks: [sink], configuration: PipelineConfiguration(maxBatchSize: 500))
        let rejectsPath = directory + "/rejects-\(UUID().uuidString).ndjson"
        let job = IngestJob(
            options: IngestJob.Options(
                validator: EventValidator(registry: registry),
                maxLineLength: maxLineLength,
                rejectsPath: rejectsPath
            ),
            pipeline: pipeline
        )
        let report = try await withThrowingTaskGroup(of: IngestReport?.self) { group in
            group.addTask {
                try await pipeline.run()
                return nil
            }
            let report = try await job.run(sources: [path])
            pipeline.shutdown()
            try await group.waitForAll()
            return report
        }
        var rejects: [Reject] = []
        if let text = try? String(contentsOfFile: rejectsPath, encoding: .utf8) {
            for line in text.split(separator: "\n") {
                let value = try JSONParser.parse(String(line))
                guard case .number(let number)? = value["line"], let lineNumber = number.int64Value,
                    let reason = value["reason"]?.stringValue
                else { continue }
                rejects.append(Reject(line: Int(lineNumber), reason: reason))
            }
        }
        return (report, sink.events, rejects)
    }

    static func validEvent(_ name: String, id: Int) -> [UInt8] {
        let eventID = EventID(high: 0x0193_0000_0000_7000 | UInt64(id), low: 0x8000_0000_0000_0000 | UInt64(id))
        return Array(#"{"event_id":"\#(eventID)","name":"\#(name)","occurred_at":"2026-11-22T10:00:00Z"}"#.utf8)
    }
}
