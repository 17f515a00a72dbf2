import Logging
import TallyCore
import TallyPipeline
import TallyPipelineTesting
import Testing

@testable import TallyServer

/// No test here sleeps for an outcome or bounds one by the clock: each waits for the state it
/// needs (a write under way, requests pending), and deadlines far off are only guards against a
/// hang, with the suite's time limit.
@Suite("Group committer", .timeLimit(.minutes(5)))
struct GroupCommitterTests {
    struct Failure: Error {}

    /// A request deadline that only guards against a hang: nothing here waits for it.
    static var farDeadline: ContinuousClock.Instant { .now + .seconds(3600) }

    /// Returns once `condition` holds, looking again every few milliseconds.
    static func until(_ condition: () -> Bool) async throws {
        while !condition() { try await Task.sleep(for: .milliseconds(5)) }
    }

    static func events(_ count: Int, tag: Int) -> [EventEnvelope] {
        (0..<count).map { index in
            EventEnvelope(
                eventID: EventID(high: UInt64(tag), low: UInt64(index)),
                name: "episode_list_viewed",
                occurredAt: Timestamp(secondsSinceEpoch: 1_700_000_000)
            )
        }
    }

    /// Runs `body` with the committer's service running, then stops it.
    func withCommitter<T: Sendable>(
        _ sink: InMemorySink,
        configuration: GroupCommitter.Configuration = .init(),
        _ body: @Sendable (GroupCommitter) async throws -> T
    ) async throws -> T {
        let committer = GroupCommitter(
            sink: sink,
            rejects: InMemoryRejectSink(),
            configuration: configuration,
            metrics: CollectorMetrics(),
            logger: Logger(label: "test")
        )
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await committer.run() }
            let result = try await body(committer)
            group.cancelAll()
            return result
        }
    }

    @Test("concurrent requests share sink batches, and every one is answered committed")
    func shared() async throws {
        let sink = InMemorySink()
        sink.isStalled = true
        let outcomes = try await withCommitter(sink) { committer in
            try await withThrowingTaskGroup(of: CommitOutcome.self) { group in
                for tag in 0..<40 {
                    group.addTask {
                        await committer.commit(
                            events: Self.events(5, tag: tag),
                            rejects: [],
                            deadline: Self.farDeadline
                        )
                    }
                    // The first request's round is being written (and stalls) before the others come.
                    if tag == 0 { await sink.waitForWriteAttempts(count: 1) }
                }
                // The other 39 pile up behind it, then go out as one round.
                try await Self.until { committer.pendingEvents == 39 * 5 }
                sink.isStalled = false
                var outcomes: [CommitOutcome] = []
                for try await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
        }
        #expect(outcomes.count == 40)
        #expect(outcomes.allSatisfy { $0 == .committed })
        #expect(sink.eventCount == 200)
        #expect(sink.batches.map(\.count) == [5, 39 * 5])
        #expect(sink.flushCount == 2)
    }

    @Test("a failing sink is retried, then the requests are answered committed")
    func retried() async throws {
        let sink = InMemorySink()
        sink.fail(with: Failure(), times: 2)
        let outcome = try await withCommitter(sink) { committer in
            await committer.commit(events: Self.events(3, tag: 1), rejects: [], deadline: Self.farDeadline)
        }
        #expect(outcome == .committed)
        #expect(sink.writeAttempts == 3)
        #expect(sink.eventCount == 3)
    }

    @Test("a sink that keeps failing: unavailable, nothing acknowledged")
    func unavailable() async throws {
        let sink = InMemorySink()
        sink.fail(with: Failure())
        let outcome = try await withCommitter(
            sink,
            configuration: .init(retry: RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(10)))
        ) { committer in
            await committer.commit(events: Self.events(3, tag: 1), rejects: [], deadline: Self.farDeadline)
        }
        #expect(outcome == .unavailable)
        #expect(sink.writeAttempts == 3)
    }

    @Test("a sink that hangs: the request is answered at its deadline")
    func deadline() async throws {
        let sink = InMemorySink()
        sink.isStalled = true
        // The write never ends (no write timeout to speak of): only the deadline can answer.
        let outcome = try await withCommitter(sink, configuration: .init(writeTimeout: .seconds(3600))) { committer in
            await committer.commit(events: Self.events(1, tag: 1), rejects: [], deadline: .now + .milliseconds(300))
        }
        #expect(outcome == .timedOut)
        #expect(sink.eventCount == 0)
        sink.isStalled = false
    }

    @Test("a write that does not finish in time is cancelled and retried, then the request gets unavailable")
    func writeTimeout() async throws {
        let sink = InMemorySink()
        sink.isStalled = true
        let outcome = try await withCommitter(
            sink,
            configuration: .init(
                retry: RetryPolicy(maxAttempts: 2, initialBackoff: .milliseconds(10)),
                writeTimeout: .milliseconds(100)
            )
        ) { committer in
            await committer.commit(events: Self.events(1, tag: 1), rejects: [], deadline: Self.farDeadline)
        }
        #expect(outcome == .unavailable)
        #expect(sink.writeAttempts == 2)
        #expect(sink.eventCount == 0)
        sink.isStalled = false
    }

    @Test("cancelled with requests waiting (past the shutdown limit): every request is answered")
    func cancelled() async throws {
        let sink = InMemorySink()
        sink.isStalled = true
        let committer = GroupCommitter(
            sink: sink,
            rejects: InMemoryRejectSink(),
            // One request per round: the first is written (and stalls), the second waits.
            configuration: .init(maxRoundEvents: 1),
            metrics: CollectorMetrics(),
            logger: Logger(label: "test")
        )
        // commit() does not end when its task is cancelled: only an answer ends it.
        let outcomes = await withTaskGroup(of: (Int, CommitOutcome)?.self) { group in
            group.addTask {
                try? await committer.run()
                return nil
            }
            for tag in 0..<2 {
                group.addTask {
                    let events = Self.events(1, tag: tag)
                    return (tag, await committer.commit(events: events, rejects: [], deadline: Self.farDeadline))
                }
                if tag == 0 { await sink.waitForWriteAttempts(count: 1) }
            }
            try? await Self.until { committer.pendingEvents == 1 }
            group.cancelAll()
            var outcomes: [Int: CommitOutcome] = [:]
            for await case let (tag, outcome)? in group { outcomes[tag] = outcome }
            return outcomes
        }
        // The stalled write is cancelled: its request is told the store failed. The waiting one is
        // refused as shutting down, or, when the committer had already started its round before
        // the cancellation reached it, that round fails the same way. Neither is acknowledged.
        #expect(outcomes[0] == .unavailable)
        #expect(outcomes[1] == .shuttingDown || outcomes[1] == .unavailable)
        #expect(
            await committer.commit(events: Self.events(1, tag: 9), rejects: [], deadline: .now + .seconds(1))
                == .shuttingDown
        )
    }

    @Test("over capacity: 429 at once for the request that does not fit")
    func full() async throws {
        let sink = InMemorySink()
        sink.isStalled = true
        let outcome = try await withCommitter(sink, configuration: .init(maxPendingEvents: 10)) { committer in
            try await withThrowingTaskGroup(of: CommitOutcome.self) { group in
                // The first is taken by the stalled round, the second waits, the third does not fit.
                group.addTask {
                    await committer.commit(events: Self.events(8, tag: 1), rejects: [], deadline: Self.farDeadline)
                }
                await sink.waitForWriteAttempts(count: 1)
                group.addTask {
                    await committer.commit(events: Self.events(8, tag: 2), rejects: [], deadline: Self.farDeadline)
                }
                try await Self.until { committer.pendingEvents == 8 }
                let third = await committer.commit(
                    events: Self.events(8, tag: 3),
                    rejects: [],
                    deadline: Self.farDeadline
                )
                sink.isStalled = false
                for try await _ in group {}
                return third
            }
        }
        #expect(outcome == .queueFull)
    }
}
