import InMemoryLogging
import Logging
import TallyCore
import TallyPipeline
import TallyPipelineTesting
import Testing
import Tracking

@Suite("Pipeline under concurrent producers")
struct PipelineConcurrencyTests {
    @Test("8 producers × 100,000 events: every event delivered once, each producer's order kept")
    func eightProducersExactlyOnceInOrder() async throws {
        let producers = 8
        let perProducer = 100_000
        let sink = InMemorySink()
        let pipeline = EventPipeline(
            sinks: [sink],
            configuration: PipelineConfiguration(maxBatchSize: 1_000, queueCapacity: 10_000, overflowPolicy: .block)
        )
        try await pipeline.running {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for producer in 0..<producers {
                    group.addTask {
                        // Single sends and small bursts, like real producers.
                        var sequence = 0
                        while sequence < perProducer {
                            if sequence % 3 == 0 {
                                let burst = min(50, perProducer - sequence)
                                try await pipeline.send(
                                    contentsOf: (sequence..<sequence + burst).map {
                                        TestEvents.event(producer: producer, sequence: $0)
                                    }
                                )
                                sequence += burst
                            } else {
                                try await pipeline.send(TestEvents.event(producer: producer, sequence: sequence))
                                sequence += 1
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        let events = sink.events
        #expect(events.count == producers * perProducer)
        var next = [Int](repeating: 0, count: producers)
        var outOfOrder = 0
        for event in events {
            let producer = Int(event.eventID.high)
            if Int(event.eventID.low) != next[producer] { outOfOrder += 1 }
            next[producer] = Int(event.eventID.low) + 1
        }
        #expect(outOfOrder == 0)
        #expect(next == [Int](repeating: perProducer, count: producers))
        #expect(Set(events.map(\.eventID)).count == producers * perProducer)
        let statistics = pipeline.statistics
        #expect(statistics.accepted == UInt64(producers * perProducer))
        #expect(statistics.delivered["memory"] == UInt64(producers * perProducer))
        #expect(statistics.dropped == 0)
        #expect(sink.isShutDown)
    }

    @Test("dropOldest with a stalled sink: track() never blocks, delivered + dropped == sent, drops reported")
    func dropOldestNeverBlocks() async throws {
        let (logHandler, logger) = Self.capturingLogger()
        let sink = InMemorySink()
        sink.isStalled = true
        let clock = ManualClock()
        let pipeline = EventPipeline(
            sinks: [sink],
            configuration: PipelineConfiguration(
                maxBatchSize: 10,
                batchInterval: .seconds(1),
                queueCapacity: 100,
                overflowPolicy: .dropOldest,
                sinkQueueDepth: 1
            ),
            clock: clock,
            logger: logger
        )
        let sent = 50_000
        try await pipeline.running {
            let tracker = pipeline.tracker(feature: "episode")
            // Producers on plain threads, as an app's UI and background threads would be.
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        for _ in 0..<(sent / 4) {
                            tracker.track(TrackedEvent(name: "episode_list_viewed", properties: [:]))
                        }
                    }
                }
            }
            #expect(pipeline.statistics.dropped > 0)
            // One interval later the drops are reported, once.
            await clock.waitForSleepers(count: 1)
            clock.advance(by: .seconds(1))
            await Self.waitUntil { logHandler.entries.contains { $0.message.description.contains("dropped") } }
            sink.isStalled = false
        }
        let statistics = pipeline.statistics
        #expect(statistics.accepted == UInt64(sent))
        #expect(UInt64(sink.eventCount) + statistics.dropped == UInt64(sent))
        #expect(statistics.delivered["memory", default: 0] == UInt64(sink.eventCount))
        let dropReports = logHandler.entries.filter { $0.message.description.contains("dropped") }
        #expect(dropReports.count >= 1)
        #expect(dropReports.count <= 2, "drops are reported once per interval (plus once at shutdown), not per event")
    }

    @Test("events offered after shutdown are refused and counted, never silently lost")
    func refusedAfterShutdown() async throws {
        let sink = InMemorySink()
        let pipeline = EventPipeline(sinks: [sink])
        try await pipeline.running {
            try await pipeline.send(contentsOf: TestEvents.events(count: 3))
        }
        #expect(!pipeline.offer(TestEvents.event(sequence: 99)))
        await #expect(throws: PipelineError.self) { try await pipeline.send(TestEvents.event(sequence: 100)) }
        #expect(sink.eventCount == 3)
        #expect(pipeline.statistics.refusedAfterShutdown == 2)
    }

    @Test("block policy: a synchronous offer on a full queue is refused and counted; async senders wait")
    func blockPolicyBackpressure() async throws {
        let sink = InMemorySink()
        let pipeline = EventPipeline(
            sinks: [sink],
            configuration: PipelineConfiguration(maxBatchSize: 2, queueCapacity: 3, overflowPolicy: .block)
        )
        // Not running yet: nothing drains the queue.
        #expect((0..<5).map { pipeline.offer(TestEvents.event(sequence: $0)) } == [true, true, true, false, false])
        #expect(pipeline.statistics.accepted == 5)
        #expect(pipeline.statistics.dropped == 2)

        let waiting = Task { try await pipeline.send(TestEvents.event(sequence: 10)) }
        let cancelled = Task { try await pipeline.send(TestEvents.event(sequence: 11)) }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        try await pipeline.running {
            try await waiting.value  // room once the batcher runs
        }
        #expect(sink.events.map(\.eventID.low) == [0, 1, 2, 10])
    }

    static func capturingLogger() -> (InMemoryLogHandler, Logger) {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "test") { _ in handler }
        logger.logLevel = .debug
        return (handler, logger)
    }

    /// Polls a condition with yields (not sleeps): for state that changes on another task.
    static func waitUntil(_ condition: () -> Bool) async {
        while !condition() { await Task.yield() }
    }
}
