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
    let deadLetters: any DeadLetterSink
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
                        try await withDeadline(timeout, clock: ContinuousClock(), what: "\(sink.name) flush") {
                            [sink] in
                            try await sink.flush()
                        }
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
            try await withDeadline(timeout, clock: ContinuousClock(), what: "\(sink.name) shutdown") { [sink] in
                try await sink.shutdown()
            }
        } catch {
            logger.error("sink shutdown failed", metadata: ["tally.sink": "\(sink.name)", "error": "\(error)"])
        }
    }

    private func deliver(_ events: [EventEnvelope]) async {
        var attempt = 0
        while true {
            attempt += 1
            do {
                try await withDeadline(timeout, clock: ContinuousClock(), what: "\(sink.name) write") { [sink] in
                    try await sink.write(events)
                }
                counters.withLock { $0.delivered[sink.name, default: 0] += UInt64(events.count) }
                givenUp.withLock { $0 = false }
                return
            } catch {
                if givenUp.withLock({ $0 }) {
                    await deadLetter(
                        events,
                        reason: "\(error) (the sink is still failing after an earlier batch used up its retries)",
                        attempts: attempt
                    )
                    return
                }
                let errorClass = SinkErrorClass.of(error)
                guard attempt < retry.maxAttempts, errorClass == .transient, !Task.isCancelled else {
                    givenUp.withLock { $0 = true }
                    let reason = errorClass == .permanent ? "\(error) (permanent: not retried)" : "\(error)"
                    await deadLetter(events, reason: reason, attempts: attempt)
                    return
                }
                // A local of this synchronous statement, not an inout `var` of the async frame: that
                // empty struct had no valid address there under ThreadSanitizer (see Uploader.send).
                let backoff = { () -> Duration in
                    var random = SystemRandomNumberGenerator()
                    return retry.jitteredBackoff(afterAttempt: attempt, using: &random)
                }()
                logger.warning(
                    "sink write failed, retrying",
                    metadata: [
                        "tally.sink": "\(sink.name)", "tally.attempt": "\(attempt)",
                        "tally.backoff": "\(backoff)", "error": "\(error)",
                    ]
                )
                counters.withLock { $0.retries += 1 }
                do {
                    try await clock.sleep(for: backoff)
                } catch {
                    // Cancelled: no time left to wait, so keep the batch rather than retry.
                    await deadLetter(events, reason: "cancelled while retrying", attempts: attempt)
                    return
                }
            }
        }
    }

    private func deadLetter(_ events: [EventEnvelope], reason: String, attempts: Int) async {
        let letter = DeadLetter(
            events: events,
            sinkName: sink.name,
            reason: reason,
            attempts: attempts,
            failedAt: .now()
        )
        logger.error(
            "sink write failed for good, batch dead-lettered",
            metadata: ["tally.sink": "\(sink.name)", "tally.events": "\(events.count)", "tally.reason": "\(reason)"]
        )
        do {
            try await deadLetters.store(letter)
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
