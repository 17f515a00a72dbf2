// The code samples of TallyPipeline.docc (running the pipeline, implementing a sink,
// configuration), compiled and exercised by the tests below.

import Foundation
import Logging
import ServiceLifecycle
import TallyCore
import TallyFileStore
import TallyPipeline
import TallyPipelineTesting
import TallySchema
import Testing
import Tracking

// MARK: - Implementing a sink

/// Sends each batch as NDJSON to an HTTP collector. The pipeline retries a batch whose write
/// throws (so the collector must accept a batch twice: events keep their ids), then dead-letters
/// it; it never calls `write` for two batches at once unless `maxConcurrentWrites` says so.
struct CollectorSink: EventSink {
    let name = "collector"
    /// Posts one NDJSON body to the collector and returns the HTTP status (with URLSession,
    /// AsyncHTTPClient, …: the sink does not mind which).
    let post: @Sendable (_ ndjson: [UInt8]) async throws -> Int

    func write(_ batch: [EventEnvelope]) async throws {
        var body: [UInt8] = []
        for event in batch { event.appendNDJSON(to: &body) }  // one JSON object per line
        let status = try await post(body)
        guard (200..<300).contains(status) else { throw CollectorError(status: status) }
    }
}

/// Says whether a retry can help: a 5xx, 408 or 429 may pass; any other 4xx will be refused
/// again, so the pipeline dead-letters that batch at once instead of retrying it.
struct CollectorError: ClassifiedError, CustomStringConvertible {
    let status: Int
    var errorClass: SinkErrorClass {
        status >= 500 || status == 408 || status == 429 ? .transient : .permanent
    }
    var description: String { "the collector answered HTTP \(status)" }
}

// MARK: - Configuration

/// An app's pipeline: in-app settings (never block the UI, drop the oldest events when the
/// queue is full), plans checked before delivery, the file store as the durable sink.
func makeAppPipeline(dataDirectory: String, registry: SchemaRegistry) -> EventPipeline {
    var configuration = PipelineConfiguration.inApp
    configuration.batchInterval = .seconds(10)
    configuration.retry = RetryPolicy(maxAttempts: 8, initialBackoff: .milliseconds(250), maxBackoff: .seconds(30))
    return EventPipeline(
        sinks: [FileSink(directory: dataDirectory)],
        deadLetters: FileRejectSink(directory: dataDirectory),
        configuration: configuration,
        validation: EventValidation(validator: EventValidator(registry: registry), policy: .reject),
        logger: Logger(label: "app.tracking")
    )
}

// MARK: - Running the pipeline

/// The pipeline is a `Service`: run it in the app's `ServiceGroup`, next to the app itself, and
/// it flushes everything accepted when the group shuts down (SIGTERM, SIGINT, or the app ending).
func runApp(pipeline: EventPipeline, app: some Service, logger: Logger) async throws {
    var configuration = ServiceGroupConfiguration(
        services: [
            .init(service: pipeline),
            .init(service: app, successTerminationBehavior: .gracefullyShutdownGroup),
        ],
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: logger
    )
    // A bound on shutdown: past it, writes still running are cancelled and dead-lettered.
    configuration.maximumGracefulShutdownDuration = .seconds(10)
    try await ServiceGroup(configuration: configuration).run()
}

/// What the features get: a `TrackerContract` bound to their feature and the current user.
func makeSearchTracker(pipeline: EventPipeline, installationID: String) -> any TrackerContract {
    pipeline.tracker(feature: "search", identity: TrackerIdentity(anonymousID: installationID))
}

// MARK: - Tests

@Suite("Docs: the pipeline samples")
struct PipelineSnippetTests {
    @Test("the collector sink posts NDJSON, and a failed status is retried then dead-lettered")
    func collectorSink() async throws {
        let posted = Locked<[String]>([])
        let status = Locked(503)
        let sink = CollectorSink { body in
            posted.withLock { $0.append(String(decoding: body, as: UTF8.self)) }
            return status.withLock { $0 }
        }
        let deadLetters = InMemoryRejectSink()
        var configuration = PipelineConfiguration(maxBatchSize: 2)
        configuration.retry = RetryPolicy(maxAttempts: 2, initialBackoff: .milliseconds(1))
        let pipeline = EventPipeline(sinks: [sink], deadLetters: deadLetters, configuration: configuration)
        var ids = UUIDv7Generator()
        let now = Timestamp.now()
        let events = (0..<2).map { _ in
            EventEnvelope(eventID: ids.next(at: now), name: "search_viewed", feature: "search", occurredAt: now)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pipeline.run() }
            try await pipeline.send(contentsOf: events)
            await pipeline.flush()
            status.withLock { $0 = 200 }
            try await pipeline.send(contentsOf: events)
            await pipeline.flush()
            pipeline.shutdown()
            try await group.waitForAll()
        }
        #expect(posted.withLock { $0.count } == 3, "two failed attempts, then a success")
        #expect(posted.withLock { $0.last?.split(separator: "\n").count } == 2)
        #expect(deadLetters.rejects.count == 2)
        #expect(
            deadLetters.rejects.first?.reason
                == Reject.Reason(code: "sink_error", message: "the collector answered HTTP 503")
        )
        #expect(deadLetters.rejects.first?.origin == .sink(name: sink.name, attempts: 2))
        #expect(CollectorError(status: 403).errorClass == .permanent)
    }

    @Test("the app pipeline validates against the plans and stores in the file store")
    func appPipeline() async throws {
        let directory = NSTemporaryDirectory() + "tally-docs-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let registry = try SchemaRegistry.load(
            directory: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Examples/registry").standardized.path
        )
        let pipeline = makeAppPipeline(dataDirectory: directory, registry: registry)
        let tracker = makeSearchTracker(pipeline: pipeline, installationID: "install-1")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pipeline.run() }
            tracker.track(TrackedEvent(name: "search_viewed", properties: [:]))
            tracker.track(TrackedEvent(name: "search_viewed", properties: ["unexpected": "x"]))
            await pipeline.flush()
            pipeline.shutdown()
            try await group.waitForAll()
        }
        let (stored, _) = try FileStoreReader(directory: directory).readAll()
        #expect(stored.map(\.name) == ["search_viewed"])
        #expect(pipeline.statistics.rejected == 1)
    }
}
