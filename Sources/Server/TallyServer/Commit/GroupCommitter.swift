package import Logging
import ServiceLifecycle
package import TallyCore
package import TallyPipeline

/// One shared writer for every request: what requests hand in while a round is being written
/// accumulates and goes out as the next round, one sink batch (write, then flush: commit or
/// fsync) for all of them, after which each waiting request is told the outcome.
///
/// The decisions are ``GroupCommitStateMachine``'s; this driver carries them out: it holds the
/// payloads and continuations, starts rounds in the task group of its ``run()`` (no unstructured
/// tasks), retries a failed round with backoff while someone still waits for it, and answers
/// requests whose deadline passes. On graceful shutdown it refuses new requests, writes what is
/// pending, then shuts the sinks down.
package final class GroupCommitter: Service, Sendable {
    /// Settings of the committer.
    package struct Configuration: Sendable {
        /// Events waiting for a round past which requests get 429.
        package var maxPendingEvents: Int
        /// Events per round at most.
        package var maxRoundEvents: Int
        /// Retries of a failed round (while a request still waits for it).
        package var retry: RetryPolicy
        /// A round's write and flush that take longer are cancelled (and retried while someone
        /// waits): a store that stopped answering does not hold a writer forever.
        package var writeTimeout: Duration

        package init(
            maxPendingEvents: Int = 50_000,
            maxRoundEvents: Int = 5_000,
            retry: RetryPolicy = RetryPolicy(
                maxAttempts: 4,
                initialBackoff: .milliseconds(100),
                maxBackoff: .seconds(1)
            ),
            writeTimeout: Duration = .seconds(30)
        ) {
            self.writeTimeout = writeTimeout
            self.maxPendingEvents = maxPendingEvents
            self.maxRoundEvents = maxRoundEvents
            self.retry = retry
        }
    }

    private typealias Machine = GroupCommitStateMachine<ContinuousClock.Instant>
    private typealias Round = Machine.Round

    private struct Payload: Sendable {
        var events: [EventEnvelope]
        var rejects: [Reject]
        var continuation: CheckedContinuation<CommitOutcome, Never>
    }

    private struct State: Sendable {
        var machine: Machine
        var payloads: [Int: Payload] = [:]
        var nextID = 0
        /// The expiry loop waits for a request rather than ticking (an idle collector stays asleep).
        var expiryIdle = false
    }

    private let sink: any EventSink
    private let rejects: any RejectSink
    private let configuration: Configuration
    private let metrics: CollectorMetrics
    private let logger: Logger
    private let state: Locked<State>
    /// Wakes ``run()``: a request arrived, a round ended, a shutdown began.
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    /// Wakes the expiry loop when a request arrives while it sleeps.
    private let expiryWakeups: AsyncStream<Void>
    private let expiryWake: AsyncStream<Void>.Continuation

    /// A committer writing to `sink` (events) and `rejects` (rejected events).
    package init(
        sink: any EventSink,
        rejects: any RejectSink,
        configuration: Configuration = Configuration(),
        metrics: CollectorMetrics,
        logger: Logger
    ) {
        self.sink = sink
        self.rejects = rejects
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        state = Locked(
            State(
                machine: GroupCommitStateMachine(
                    configuration: .init(
                        maxPendingEvents: configuration.maxPendingEvents,
                        maxConcurrentRounds: max(1, sink.maxConcurrentWrites),
                        maxRoundEvents: configuration.maxRoundEvents
                    )
                )
            )
        )
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (expiryWakeups, expiryWake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Hands `events` and `rejects` of one request to the next round and waits for the outcome,
    /// at most until `deadline`.
    package func commit(
        events: [EventEnvelope],
        rejects: [Reject],
        deadline: ContinuousClock.Instant
    ) async -> CommitOutcome {
        await withCheckedContinuation { continuation in
            let (action, wakeExpiry) = state.withLock { state in
                let id = state.nextID
                state.nextID += 1
                let action = state.machine.submit(id, events: events.count + rejects.count, deadline: deadline)
                var wakeExpiry = false
                if action == .enqueued {
                    state.payloads[id] = Payload(events: events, rejects: rejects, continuation: continuation)
                    wakeExpiry = state.expiryIdle
                    state.expiryIdle = false
                }
                metrics.queueDepth.record(state.machine.pendingEvents)
                return (action, wakeExpiry)
            }
            switch action {
            case .enqueued:
                wake.yield()
                if wakeExpiry { expiryWake.yield() }
            case .refuseFull:
                metrics.drops.increment(by: events.count)
                continuation.resume(returning: .queueFull)
            case .refuseShuttingDown: continuation.resume(returning: .shuttingDown)
            }
        }
    }

    /// Events handed in and not yet taken by a round (what tests wait for instead of sleeping).
    package var pendingEvents: Int { state.withLock { $0.machine.pendingEvents } }

    /// Whether the sinks answer (for `/readyz`).
    package func isReady() async -> Bool {
        if state.withLock({ $0.machine.isShuttingDown }) { return false }
        if let probe = sink as? any ReadinessProbe, !(await probe.isReachable()) { return false }
        if let probe = rejects as? any ReadinessProbe, !(await probe.isReachable()) { return false }
        return true
    }

    package func run() async throws {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.expireLoop() }
                for await _ in wakeups {
                    while let (round, events, rejected) = state.withLock({ self.takeRound(&$0) }) {
                        group.addTask { await self.write(round, events, rejected) }
                    }
                    if state.withLock({ $0.machine.isDrained }) { break }
                }
                group.cancelAll()
            }
            // Cancelled before the queue drained (past the graceful-shutdown limit): requests still
            // waiting are answered, never left hanging; rounds in flight answered themselves.
            let stranded = state.withLock { state in
                state.machine.beginShutdown()
                defer { state.payloads.removeAll() }
                return state.payloads.values.map(\.continuation)
            }
            for continuation in stranded { continuation.resume(returning: .shuttingDown) }
        } onGracefulShutdown: {
            self.state.withLock { $0.machine.beginShutdown() }
            self.wake.yield()
        }
        do {
            try await sink.shutdown()
        } catch {
            logger.error("the sink failed to shut down", metadata: ["tally.error": "\(error)"])
        }
    }

    /// Answers requests whose deadline passed, every 25 ms while any waits; with none waiting, it
    /// sleeps until one comes (ticking regardless woke an idle collector 40 times a second).
    private func expireLoop() async {
        var arrivals = expiryWakeups.makeAsyncIterator()
        while !Task.isCancelled {
            let idle = state.withLock { state in
                state.expiryIdle = state.machine.earliestDeadline == nil
                return state.expiryIdle
            }
            if idle {
                guard await arrivals.next() != nil else { return }
                continue
            }
            try? await Task.sleep(for: .milliseconds(25))
            let now = ContinuousClock.now
            let answers = state.withLock { state -> [(Int, Machine.Answer)] in
                guard state.machine.earliestDeadline.map({ $0 <= now }) == true else { return [] }
                let answers = state.machine.expire(now: now)
                metrics.queueDepth.record(state.machine.pendingEvents)
                return answers
            }
            if !answers.isEmpty {
                resume(answers)
                wake.yield()
            }
        }
    }

    /// The next round and what it writes, taken under the lock, so that a request answered
    /// (timed out) from now on changes nothing about the round.
    private func takeRound(_ state: inout State) -> (Round, [EventEnvelope], [Reject])? {
        guard let round = state.machine.nextRound() else { return nil }
        metrics.queueDepth.record(state.machine.pendingEvents)
        var events: [EventEnvelope] = []
        var rejected: [Reject] = []
        events.reserveCapacity(round.events)
        for id in round.requests {
            guard let payload = state.payloads[id] else { continue }
            events.append(contentsOf: payload.events)
            rejected.append(contentsOf: payload.rejects)
            // The events are in the round now; only the continuation is still needed.
            state.payloads[id]?.events = []
            state.payloads[id]?.rejects = []
        }
        return (round, events, rejected)
    }

    private func write(_ round: Round, _ events: [EventEnvelope], _ rejected: [Reject]) async {
        // A round nobody waits for any more (every request timed out) is not retried.
        let outcome = await RetryDriver(policy: configuration.retry).run(
            shouldRetry: { _, _ in state.withLock { $0.machine.isAwaited(round.id) } },
            willRetry: { _, _, _ in metrics.retries.increment() }
        ) { attempt in
            let started = ContinuousClock.now
            do {
                try await withTimeLimit(configuration.writeTimeout) { try await self.writeOnce(events, rejected) }
            } catch {
                metrics.sinkFailures.increment()
                logger.warning(
                    "commit round failed",
                    metadata: [
                        "tally.events": "\(events.count)", "tally.attempt": "\(attempt)", "tally.error": "\(error)",
                    ]
                )
                throw error
            }
            metrics.sinkLatency.recordNanoseconds(Collector.nanoseconds(ContinuousClock.now - started))
        }
        let succeeded = if case .succeeded = outcome { true } else { false }
        let answers = state.withLock { state in
            succeeded ? state.machine.roundSucceeded(round.id) : state.machine.roundFailed(round.id)
        }
        if succeeded {
            metrics.eventsCommitted.increment(by: events.count)
        }
        resume(answers)
        wake.yield()
    }

    private func writeOnce(_ events: [EventEnvelope], _ rejected: [Reject]) async throws {
        // The usual round has no rejects: then no child task for them (one more trip through the
        // event loops).
        guard !rejected.isEmpty else { return try await writeEvents(events) }
        async let storedRejects: Void = rejects.store(rejected)
        try await writeEvents(events)
        try await storedRejects
    }

    private func writeEvents(_ events: [EventEnvelope]) async throws {
        guard !events.isEmpty else { return }
        try await sink.write(events)
        try await sink.flush()
    }

    /// Each answer resumes its request once: its payload (and continuation) leaves the table.
    private func resume(_ answers: [(Int, Machine.Answer)]) {
        let continuations = state.withLock { state in
            answers.compactMap { id, answer in
                state.payloads.removeValue(forKey: id).map { ($0.continuation, answer) }
            }
        }
        for (continuation, answer) in continuations {
            switch answer {
            case .committed: continuation.resume(returning: .committed)
            case .failed: continuation.resume(returning: .unavailable)
            case .timedOut: continuation.resume(returning: .timedOut)
            }
        }
    }
}
