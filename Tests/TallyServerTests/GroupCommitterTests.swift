import Logging
import TallyCore
import TallyPipeline
import TallyPipelineTesting
import Testing

@testable import TallyServer

@Suite("Group committer")
struct GroupCommitterTests {
    struct Failure: Error {}

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
                            deadline: .now + .seconds(30)
                        )
                    }
                }
                // The first round waits on the stalled sink while the other requests pile up.
                try await Task.sleep(for: .milliseconds(200))
                sink.isStalled = false
                var outcomes: [CommitOutcome] = []
                for try await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
        }
        #expect(outcomes.count == 40)
        #expect(outcomes.allSatisfy { $0 == .committed })
        #expect(sink.eventCount == 200)
        #expect(sink.batches.count < 40)
        #expect(sink.flushCount == sink.batches.count)
    }

    @Test("a failing sink is retried, then the requests are answered committed")
    func retried() async throws {
        let sink = InMemorySink()
        sink.fail(with: Failure(), times: 2)
        let outcome = try await withCommitter(sink) { committer in
            await committer.commit(events: Self.events(3, tag: 1), rejects: [], deadline: .now + .seconds(30))
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
            await committer.commit(events: Self.events(3, tag: 1), rejects: [], deadline: .now + .seconds(30))
        }
        #expect(outcome == .unavailable)
        #expect(sink.writeAttempts == 3)
    }

    @Test("a sink that hangs: the request is answered at its deadline")
    func deadline() async throws {
        let sink = InMemorySink()
        sink.isStalled = true
        let started = ContinuousClock.now
        let outcome = try await withCommitter(sink) { committer in
            await committer.commit(events: Self.events(1, tag: 1), rejects: [], deadline: .now + .milliseconds(300))
        }
        #expect(outcome == .timedOut)
        // Well before the stalled write ends (it never does): the deadline answered it. Loose, as
        // the whole suite shares two cores.
        #expect(ContinuousClock.now - started < .seconds(60))
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
            await committer.commit(events: Self.events(1, tag: 1), rejects: [], deadline: .now + .seconds(120))
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
        let outcomes = await withTaskGroup(of: CommitOutcome?.self) { group in
            group.addTask {
                try? await committer.run()
                return nil
            }
            for tag in 0..<2 {
                group.addTask {
                    await committer.commit(
                        events: Self.events(1, tag: tag),
                        rejects: [],
                        deadline: .now + .seconds(600)
                    )
                }
            }
            try? await Task.sleep(for: .milliseconds(200))
            group.cancelAll()
            var outcomes: [CommitOutcome] = []
            for await outcome in group { if let outcome { outcomes.append(outcome) } }
            return outcomes
        }
        #expect(outcomes.sorted { "\($0)" < "\($1)" } == [.shuttingDown, .unavailable])
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
                    await committer.commit(events: Self.events(8, tag: 1), rejects: [], deadline: .now + .seconds(2))
                }
                try await Task.sleep(for: .milliseconds(100))
                group.addTask {
                    await committer.commit(events: Self.events(8, tag: 2), rejects: [], deadline: .now + .seconds(2))
                }
                try await Task.sleep(for: .milliseconds(100))
                let third = await committer.commit(
                    events: Self.events(8, tag: 3),
                    rejects: [],
                    deadline: .now + .seconds(2)
                )
                sink.isStalled = false
                for try await _ in group {}
                return third
            }
        }
        #expect(outcome == .queueFull)
    }
}
