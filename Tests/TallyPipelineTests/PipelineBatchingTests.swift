import TallyCore
import TallyPipelineTesting
import Testing

@testable import TallyPipeline

/// Batching, retries and dead letters on a manual clock: no sleeps, no timing assumptions.
@Suite("Pipeline batching and retries (manual clock)")
struct PipelineBatchingTests {
    static func configuration(
        batch: Int = 10,
        interval: Duration = .seconds(5),
        retry: RetryPolicy = RetryPolicy(jitter: 0)
    ) -> PipelineConfiguration {
        var configuration = PipelineConfiguration(
            maxBatchSize: batch,
            batchInterval: interval,
            queueCapacity: 1_000,
            retry: retry
        )
        // These tests are about batching and retries on a manual clock: the sink deadline runs on
        // the real one, and a loaded suite can keep an in-memory write from its thread for longer
        // than the default 30 s.
        configuration.sinkTimeout = .seconds(3600)
        return configuration
    }

    @Test("a full batch is written at once, without waiting for the interval")
    func flushByCount() async throws {
        let clock = ManualClock()
        let sink = InMemorySink()
        let pipeline = EventPipeline(sinks: [sink], configuration: Self.configuration(), clock: clock)
        try await pipeline.running {
            try await pipeline.send(contentsOf: TestEvents.events(count: 20))
            await sink.waitForEvents(count: 20)
            #expect(sink.batches.map(\.count) == [10, 10])
            #expect(clock.now.offset == .zero, "no time passed")
            // Less than a batch waits for the interval (which never comes here).
            try await pipeline.send(contentsOf: TestEvents.events(count: 5))
            for _ in 0..<100 { await Task.yield() }
            #expect(sink.eventCount == 20)
        }
        #expect(sink.batches.map(\.count) == [10, 10, 5], "shutdown drains the partial batch")
    }

    @Test("a batch size above the queue capacity still flushes by count, never waiting for the interval")
    func batchLargerThanQueue() async throws {
        let clock = ManualClock()
        let sink = InMemorySink()
        var configuration = Self.configuration()
        configuration.maxBatchSize = 50
        configuration.queueCapacity = 8
        configuration.overflowPolicy = .block
        let pipeline = EventPipeline(sinks: [sink], configuration: configuration, clock: clock)
        try await pipeline.running {
            try await pipeline.send(contentsOf: TestEvents.events(count: 40))
            await sink.waitForEvents(count: 40)
            #expect(clock.now.offset == .zero, "no time passed")
        }
    }

    @Test("a partial batch is written when the interval passes")
    func flushByInterval() async throws {
        let clock = ManualClock()
        let sink = InMemorySink()
        let pipeline = EventPipeline(sinks: [sink], configuration: Self.configuration(), clock: clock)
        try await pipeline.running {
            try await pipeline.send(contentsOf: TestEvents.events(count: 3))
            await clock.waitForSleepers(count: 1)
            #expect(sink.eventCount == 0)
            clock.advance(by: .seconds(4))
            #expect(sink.eventCount == 0)
            clock.advance(by: .seconds(1))
            await sink.waitForEvents(count: 3)
            #expect(sink.batches.map(\.count) == [3])
        }
    }

    @Test("with nothing queued the ticker waits for the next event, not on the clock")
    func idleTickerSleepsOnNoClock() async throws {
        let clock = ManualClock()
        let sink = InMemorySink()
        let pipeline = EventPipeline(sinks: [sink], configuration: Self.configuration(), clock: clock)
        try await pipeline.running {
            #expect(await Self.eventually { pipeline.buffer.isTickerIdle }, "nothing sent yet")
            try await pipeline.send(contentsOf: TestEvents.events(count: 3))
            await clock.waitForSleepers(count: 1)
            let sleeps = clock.requestedSleeps.count
            clock.advance(by: .seconds(5))
            await sink.waitForEvents(count: 3)
            // Back from the tick, the ticker idles, or sleeps one more interval if it looked at the
            // queue before the batcher took the events.
            #expect(await Self.eventually { pipeline.buffer.isTickerIdle || clock.requestedSleeps.count > sleeps })
            if !pipeline.buffer.isTickerIdle {
                clock.advance(by: .seconds(5))
                #expect(await Self.eventually { pipeline.buffer.isTickerIdle }, "the next round finds nothing")
            }
            let idleSleeps = clock.requestedSleeps.count
            for _ in 0..<12 { clock.advance(by: .seconds(300)) }
            try await Task.sleep(for: .milliseconds(20))  // time for a sleep that should not come
            #expect(clock.requestedSleeps.count == idleSleeps, "an idle hour: not one sleep")
            try await pipeline.send(contentsOf: TestEvents.events(producer: 2, count: 1))
            await clock.waitForSleepers(count: 1)
            clock.advance(by: .seconds(5))
            await sink.waitForEvents(count: 4)
            #expect(sink.batches.map(\.count) == [3, 1])
        }
    }

    /// Whether `condition` holds within ten seconds (checked every millisecond).
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<10_000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return condition()
    }

    @Test("flush() returns once everything sent before it is written and the sinks flushed")
    func explicitFlush() async throws {
        let sink = InMemorySink()
        let pipeline = EventPipeline(sinks: [sink], configuration: Self.configuration(), clock: ManualClock())
        try await pipeline.running {
            try await pipeline.send(contentsOf: TestEvents.events(count: 7))
            await pipeline.flush()
            #expect(sink.eventCount == 7)
            #expect(sink.flushCount == 1)
        }
    }

    @Test("a failed write is retried with exponential backoff, then succeeds")
    func retryWithBackoff() async throws {
        let clock = ManualClock()
        let sink = InMemorySink()
        sink.fail(with: SinkDown(), times: 3)
        let retry = RetryPolicy(maxAttempts: 5, initialBackoff: .milliseconds(100), multiplier: 2, jitter: 0)
        let deadLetters = InMemoryRejectSink()
        let pipeline = EventPipeline(
            sinks: [sink],
            deadLetters: deadLetters,
            configuration: Self.configuration(interval: .seconds(3600), retry: retry),
            clock: clock
        )
        try await pipeline.running {
            try await pipeline.send(contentsOf: TestEvents.events(count: 10))
            for (attempt, backoff) in [100, 200, 400].map(Duration.milliseconds).enumerated() {
                await clock.waitForSleeper(for: backoff)
                #expect(sink.writeAttempts == attempt + 1)
                clock.advance(by: backoff - .milliseconds(1))
                #expect(sink.writeAttempts == attempt + 1, "not retried before its backoff")
                clock.advance(by: .milliseconds(1))
            }
            await sink.waitForEvents(count: 10)
        }
        #expect(sink.writeAttempts == 4)
        #expect(clock.requestedSleeps.filter { $0 < .seconds(3600) } == [100, 200, 400].map(Duration.milliseconds))
        #expect(deadLetters.rejects.isEmpty)
        #expect(pipeline.statistics.retries == 3)
    }

    @Test("jitter shortens each wait by at most its fraction")
    func jitterStaysInRange() {
        let policy = RetryPolicy(
            initialBackoff: .milliseconds(100),
            multiplier: 2,
            maxBackoff: .seconds(1),
            jitter: 0.5
        )
        var generator = SystemRandomNumberGenerator()
        for attempt in 1...6 {
            let base = policy.backoff(afterAttempt: attempt)
            #expect(base == min(.milliseconds(100) * (1 << (attempt - 1)), .seconds(1)))
            for _ in 0..<100 {
                let wait = policy.jitteredBackoff(afterAttempt: attempt, using: &generator)
                #expect(wait <= base && wait >= base / 2)
            }
        }
    }

    @Test("the wait stays at the maximum however many attempts failed (no Duration overflow)")
    func backoffAfterManyAttempts() {
        let policy = RetryPolicy(maxAttempts: .max, initialBackoff: .milliseconds(500), maxBackoff: .seconds(30))
        for attempt in [60, 61, 100, 1_000, 1_000_000, Int.max] {
            #expect(policy.backoff(afterAttempt: attempt) == .seconds(30), "attempt \(attempt)")
        }
        let huge = RetryPolicy(initialBackoff: .seconds(1), multiplier: 1e300, maxBackoff: .seconds(5))
        #expect(huge.backoff(afterAttempt: 3) == .seconds(5))
    }

    @Test("after the last retry the batch goes to the dead-letter sink with the reason")
    func deadLetterAfterRetryLimit() async throws {
        let clock = ManualClock()
        let sink = InMemorySink(name: "flaky")
        sink.fail(with: SinkDown())
        let deadLetters = InMemoryRejectSink()
        let retry = RetryPolicy(maxAttempts: 3, initialBackoff: .seconds(1), jitter: 0)
        let pipeline = EventPipeline(
            sinks: [sink],
            deadLetters: deadLetters,
            configuration: Self.configuration(interval: .seconds(3600), retry: retry),
            clock: clock
        )
        try await pipeline.running {
            try await pipeline.send(contentsOf: TestEvents.events(count: 10))
            for backoff in [1, 2].map(Duration.seconds) {
                await clock.waitForSleeper(for: backoff)
                clock.advance(by: backoff)
            }
            await deadLetters.waitForRejects(count: 10)
            // The sink has used up a batch's retries: while it keeps failing, the next batch is
            // dead-lettered after one attempt instead of waiting out the backoff again.
            try await pipeline.send(contentsOf: TestEvents.events(producer: 1, count: 10))
            await deadLetters.waitForRejects(count: 20)
            #expect(deadLetters.rejects.last?.origin == .sink(name: "flaky", attempts: 1))
            // One success resets it.
            sink.fail(with: nil)
            try await pipeline.send(contentsOf: TestEvents.events(producer: 2, count: 10))
            await sink.waitForEvents(count: 10)
            sink.fail(with: SinkDown())
            try await pipeline.send(contentsOf: TestEvents.events(producer: 3, count: 10))
            await clock.waitForSleeper(for: .seconds(1))
            #expect(sink.writeAttempts == 6, "retried again")
            sink.fail(with: nil)
            clock.advance(by: .seconds(1))
            await sink.waitForEvents(count: 20)
        }
        let first = deadLetters.rejects.prefix(10)
        #expect(first.map(\.event?.eventID) == TestEvents.events(count: 10).map(\.eventID))
        #expect(first.allSatisfy { $0.origin == .sink(name: "flaky", attempts: 3) })
        #expect(first.allSatisfy { $0.reason == Reject.Reason(code: "sink_error", message: "sink is down") })
        #expect(sink.eventCount == 20)
        #expect(pipeline.statistics.deadLettered == 20)
    }

    @Test("a failing sink does not delay a healthy one")
    func failingSinkDoesNotDelayHealthy() async throws {
        let clock = ManualClock()
        let failing = InMemorySink(name: "failing")
        failing.fail(with: SinkDown())
        let healthy = InMemorySink(name: "healthy")
        let deadLetters = InMemoryRejectSink()
        let retry = RetryPolicy(maxAttempts: 3, initialBackoff: .seconds(60), jitter: 0)
        let pipeline = EventPipeline(
            sinks: [failing, healthy],
            deadLetters: deadLetters,
            configuration: Self.configuration(interval: .seconds(3600), retry: retry),
            clock: clock
        )
        try await pipeline.running {
            try await pipeline.send(contentsOf: TestEvents.events(count: 50))
            // The failing sink is stuck in its first backoff; time never moves, yet all five
            // batches reach the healthy sink.
            await healthy.waitForEvents(count: 50)
            #expect(healthy.batches.count == 5)
            #expect(failing.writeAttempts == 1)
            #expect(clock.now.offset == .zero)
            // Let the failing sink recover so that shutdown does not wait for it. Advance until it
            // has written everything: its worker may not be asleep yet (advancing once could come
            // before the sleep starts, which then never ends).
            failing.fail(with: nil)
            for _ in 0..<5_000 where failing.eventCount < 50 {
                clock.advance(by: .seconds(60))
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        #expect(healthy.eventCount == 50)
        #expect(failing.eventCount + Int(pipeline.statistics.deadLettered) == 50)
    }
}
