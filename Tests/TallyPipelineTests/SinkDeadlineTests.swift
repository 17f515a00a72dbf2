import TallyCore
import TallyPipeline
import TallyPipelineTesting
import Testing

/// Deadlines on sink calls and the class of a sink's errors: a hung write is cancelled and
/// retried, a permanent error is dead-lettered at once.
@Suite("Sink deadlines and error classes")
struct SinkDeadlineTests {
    static func configuration(retry: RetryPolicy, timeout: Duration = .seconds(30)) -> PipelineConfiguration {
        PipelineConfiguration(
            maxBatchSize: 10,
            batchInterval: .seconds(3600),
            queueCapacity: 1_000,
            retry: retry,
            sinkTimeout: timeout
        )
    }

    @Test("a write that hangs past its deadline is cancelled and retried, and the retry delivers")
    func hungWriteIsRetried() async throws {
        let sink = InMemorySink(name: "hanging")
        sink.isStalled = true
        let deadLetters = InMemoryRejectSink()
        let pipeline = EventPipeline(
            sinks: [sink],
            deadLetters: deadLetters,
            configuration: Self.configuration(
                retry: RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(1), jitter: 0),
                timeout: .milliseconds(200)
            )
        )
        try await pipeline.running {
            try await pipeline.send(contentsOf: TestEvents.events(count: 10))
            while sink.writeAttempts < 2 { try await Task.sleep(for: .milliseconds(5)) }
            // The first attempt was given up on at its deadline; the server answers again.
            sink.isStalled = false
            await sink.waitForEvents(count: 10)
        }
        #expect(sink.eventCount == 10)
        #expect(deadLetters.rejects.isEmpty)
        #expect(pipeline.statistics.retries >= 1)
    }

    @Test("a write that keeps hanging is dead-lettered with a timeout reason after its attempts")
    func hungWriteIsDeadLettered() async throws {
        let sink = InMemorySink(name: "hanging")
        sink.isStalled = true
        let deadLetters = InMemoryRejectSink()
        let pipeline = EventPipeline(
            sinks: [sink],
            deadLetters: deadLetters,
            configuration: Self.configuration(
                retry: RetryPolicy(maxAttempts: 2, initialBackoff: .milliseconds(1), jitter: 0),
                timeout: .milliseconds(100)
            )
        )
        // The stall is never lifted: that this returns at all shows the write was given up on.
        // (No wall-clock bound: the whole suite in parallel can starve these tasks for a minute.)
        try await pipeline.running {
            try await pipeline.send(contentsOf: TestEvents.events(count: 10))
            await deadLetters.waitForRejects(count: 10)
        }
        let reject = try #require(deadLetters.rejects.first)
        #expect(reject.origin == .sink(name: "hanging", attempts: 2))
        #expect(reject.reason.code == "timedOut", "\(reject.reason)")
        #expect(deadLetters.rejects.count == 10)
        #expect(sink.eventCount == 0)
    }

    @Test("a permanent error is dead-lettered after one attempt, without backoff")
    func permanentErrorIsNotRetried() async throws {
        let clock = ManualClock()
        let sink = InMemorySink(name: "refusing")
        sink.fail(with: Refused())
        let deadLetters = InMemoryRejectSink()
        let pipeline = EventPipeline(
            sinks: [sink],
            deadLetters: deadLetters,
            configuration: Self.configuration(retry: RetryPolicy(maxAttempts: 10, jitter: 0)),
            clock: clock
        )
        try await pipeline.running {
            try await pipeline.send(contentsOf: TestEvents.events(count: 10))
            await deadLetters.waitForRejects(count: 10)
        }
        #expect(sink.writeAttempts == 1)
        #expect(deadLetters.rejects.first?.origin == .sink(name: "refusing", attempts: 1))
        #expect(deadLetters.rejects.first?.reason.message.contains("permanent") == true)
        #expect(pipeline.statistics.retries == 0)
        #expect(clock.now.offset == .zero, "no backoff was waited")
    }

    @Test("a cancelled flush() stops waiting on a stalled sink; the flush goes on and delivers")
    func cancelledFlushReturns() async throws {
        let sink = InMemorySink(name: "slow disk")
        sink.isStalled = true
        let pipeline = EventPipeline(sinks: [sink], configuration: Self.configuration(retry: .none))
        try await pipeline.running {
            try await pipeline.send(contentsOf: TestEvents.events(count: 10))
            let waiter = Task { await pipeline.flush() }
            while sink.writeAttempts < 1 { try await Task.sleep(for: .milliseconds(5)) }
            waiter.cancel()
            await waiter.value  // returns although the write still hangs
            #expect(sink.eventCount == 0)
            sink.isStalled = false
            await pipeline.flush()
        }
        #expect(sink.eventCount == 10)
    }

    @Test("errors are classed: timeouts and unknown errors transient, permission refusals permanent")
    func classes() {
        #expect(SinkErrorClass.of(PipelineError(code: .timedOut, message: "")) == .transient)
        #expect(SinkErrorClass.of(SinkDown()) == .transient)
        #expect(SinkErrorClass.of(Refused()) == .permanent)
        #expect(SinkErrorClass.of(IOError(.open, path: "/x", errno: 13)) == .permanent, "EACCES")
        #expect(SinkErrorClass.of(IOError(.write, path: "/x", errno: 28)) == .transient, "ENOSPC")
    }
}

/// A sink error no retry can fix.
struct Refused: ClassifiedError, CustomStringConvertible {
    var errorClass: SinkErrorClass { .permanent }
    var description: String { "permission denied" }
}
