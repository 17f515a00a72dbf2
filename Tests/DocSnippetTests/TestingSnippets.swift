// The code samples of TallyPipelineTesting.docc, compiled and run as they are written there.

import TallyCore
import TallyPipeline
import TallyPipelineTesting
import Testing

struct Unreachable: Error {}

@Test func aFailingSinkIsRetriedThenDeadLettered() async throws {
    let sink = InMemorySink()
    sink.fail(with: Unreachable(), times: 2)
    let deadLetters = InMemoryRejectSink()
    var configuration = PipelineConfiguration(maxBatchSize: 1)
    configuration.retry = RetryPolicy(maxAttempts: 2, initialBackoff: .milliseconds(1))
    let pipeline = EventPipeline(sinks: [sink], deadLetters: deadLetters, configuration: configuration)
    var ids = UUIDv7Generator()
    let event = EventEnvelope(eventID: ids.next(at: .now()), name: "search_viewed", occurredAt: .now())
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await pipeline.run() }
        try await pipeline.send(event)
        await deadLetters.waitForRejects(count: 1)
        pipeline.shutdown()
        try await group.waitForAll()
    }
    #expect(sink.writeAttempts == 2)
    #expect(deadLetters.rejects.map(\.event) == [event])
}

@Test func aPartialBatchWaitsForTheInterval() async throws {
    let sink = InMemorySink()
    let clock = ManualClock()
    let configuration = PipelineConfiguration(maxBatchSize: 100, batchInterval: .seconds(5))
    let pipeline = EventPipeline(sinks: [sink], configuration: configuration, clock: clock)
    var ids = UUIDv7Generator()
    let event = EventEnvelope(eventID: ids.next(at: .now()), name: "search_viewed", occurredAt: .now())
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await pipeline.run() }
        try await pipeline.send(event)
        await clock.waitForSleepers(count: 1)
        #expect(sink.eventCount == 0)
        clock.advance(by: .seconds(5))
        await sink.waitForEvents(count: 1)
        pipeline.shutdown()
        try await group.waitForAll()
    }
    #expect(sink.batches == [[event]])
}
