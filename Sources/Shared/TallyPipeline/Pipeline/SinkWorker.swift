import Logging
import TallyCore

/// Feeds one sink from its own bounded queue, retrying failed writes and dead-lettering what
/// cannot be written, so that one failing sink never holds up another.
struct SinkWorker: Sendable {
    let sink: any EventSink
    let queue: AsyncBoundedQueue<SinkWork>
    let retry: RetryPolicy
    /// The deadline of each write, flush and shutdown, on the continuous clock whatever `clock` is:
    /// `clock` paces batching and backoff (tests step it by hand), a deadline guards against real hangs.
    let timeout: Duration
    let clock: any Clock<Duration>
    let deadLetters: any RejectSink
    let counters: Locked<SinkCounters>
    let logger: Logger
    /// Set when a batch used up its retries, cleared by the next successful write. While set, a
    /// failed batch is dead-lettered after one attempt: during a known outage each batch would
    /// otherwise wait out the whole backoff schedule before the next one could fail.
    let givenUp = Locked(false)

    /// Processes work until the queue is finished, then shuts the sink down.
    func run() async {
        let limit = max(1, sink.maxConcurrentWrites)
        await withTaskGroup(of: Void.self) { group in
            var inFlight = 0
            while let work = await queue.next() {
                switch work {
                case .batch(let events):
                    if inFlight == limit {
                        await group.next()
                        inFlight -= 1
                    }
                    if limit == 1 {
                        await deliver(events)
                    } else {
                        group.addTask { await deliver(events) }
                        inFlight += 1
                    }
                case .flush(let ticket):
                    // Everything before the flush is written first.
                    await group.waitForAll()
                    inFlight = 0
                    do {
                        try await withDeadline(what: "flush") { [sink] in try await sink.flush() }
                    } catch {
                        logger.error(
                            "sink flush failed",
                            metadata: ["tally.sink": "\(sink.name)", "error": "\(error)"]
                        )
                    }
                    ticket.partDone()
                }
            }
            await group.waitForAll()
        }
        do {
            try await withDeadline(what: "shutdown") { [sink] in try await sink.shutdown() }
        } catch {
            logger.error("sink shutdown failed", metadata: ["tally.sink": "\(sink.name)", "error": "\(error)"])
        }
    }

    private func deliver(_ events: [EventEnvelope]) async {
        // While an earlier batch has used up its retries, a failed batch is not retried.
        let outcome = await RetryDriver(policy: retry, clock: clock).run(
            shouldRetry: { _, _ in !givenUp.withLock { $0 } },
            willRetry: { error, attempt, backoff in
                logger.warning(
                    "sink write failed, retrying",
                    metadata: [
                        "tally.sink": "\(sink.name)", "tally.attempt": "\(attempt)",
                        "tally.backoff": "\(backoff)", "error": "\(error)",
                    ]
                )
                counters.withLock { $0.retries += 1 }
            }
        ) { _ in
            try await withDeadline(what: "write") { [sink] in try await sink.write(events) }
        }
        switch outcome {
        case .succeeded:
            counters.withLock { $0.delivered[sink.name, default: 0] += UInt64(events.count) }
            givenUp.withLock { $0 = false }
        case .failed(let error, let attempts, let stop):
            let message: String
            switch stop {
            case .permanent: message = "\(error) (permanent: not retried)"
            case .exhausted: message = "\(error)"
            case .declined: message = "\(error) (the sink is still failing after an earlier batch used up its retries)"
            // No time left to wait, so keep the batch rather than retry.
            case .cancelledWhileWaiting: message = "cancelled while retrying"
            }
            if stop == .permanent || stop == .exhausted { givenUp.withLock { $0 = true } }
            let code = stop == .cancelledWhileWaiting ? "cancelled" : Self.reasonCode(of: error)
            await deadLetter(events, reason: Reject.Reason(code: code, message: message), attempts: attempts)
        }
    }

    /// The stable code of a failed write: the error's own (``ClassifiedError/reasonCode``).
    static func reasonCode(of error: any Error) -> String {
        if error is CancellationError { return "cancelled" }
        return (error as? any ClassifiedError)?.reasonCode ?? "sink_error"
    }

    /// Runs one call of the sink under ``timeout`` (structured, like swift-otel's export timeout:
    /// nothing keeps running behind the caller's back, so a sink is never called twice at once);
    /// past it the call is cancelled and counts as a failed attempt, ``PipelineError/Code/timedOut``.
    private func withDeadline(
        what: String,
        _ operation: @escaping @Sendable () async throws -> Void
    ) async throws {
        do {
            try await withTimeLimit(timeout, operation)
        } catch let error as TimeLimitExceeded {
            throw PipelineError(code: .timedOut, message: "\(sink.name) \(what) \(error)")
        }
    }

    private func deadLetter(_ events: [EventEnvelope], reason: Reject.Reason, attempts: Int) async {
        let failedAt = Timestamp.now()
        let rejects = events.map {
            Reject(
                content: .event($0),
                reason: reason,
                origin: .sink(name: sink.name, attempts: attempts),
                failedAt: failedAt
            )
        }
        logger.error(
            "sink write failed for good, batch dead-lettered",
            metadata: [
                "tally.sink": "\(sink.name)", "tally.events": "\(events.count)",
                "tally.reason": "\(reason.code): \(reason.message)",
            ]
        )
        do {
            try await deadLetters.store(rejects)
            counters.withLock { $0.deadLettered += UInt64(events.count) }
        } catch {
            counters.withLock { $0.lost += UInt64(events.count) }
            logger.critical(
                "dead-letter sink failed: events lost",
                metadata: ["tally.sink": "\(sink.name)", "tally.events": "\(events.count)", "error": "\(error)"]
            )
        }
    }
}

/// What the sink workers count.
struct SinkCounters: Sendable {
    var delivered: [String: UInt64] = [:]
    var retries: UInt64 = 0
    var deadLettered: UInt64 = 0
    var lost: UInt64 = 0
    var rejected: UInt64 = 0
    var annotated: UInt64 = 0
}
