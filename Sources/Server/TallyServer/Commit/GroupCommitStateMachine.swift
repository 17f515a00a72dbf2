import DequeModule

/// The group commit's decisions, without I/O or clocks: which requests wait, which ones a commit
/// round takes, who is answered what and when, and when a shutdown is complete.
///
/// Requests are submitted with their event count and deadline; a round takes the oldest pending
/// requests (up to ``Configuration/maxRoundEvents``, at least one) whenever fewer than
/// ``Configuration/maxConcurrentRounds`` are in flight. Every request is answered exactly once:
/// `committed` when its round succeeded, `failed` when the round gave up, `timedOut` when its
/// deadline passed first (pending or in flight: a late success then changes nothing the client
/// was told, and its re-send deduplicates), `full` or `shuttingDown` at once when refused.
///
/// The driver (``GroupCommitter``) holds it under a lock and carries out the actions it returns.
package struct GroupCommitStateMachine<Instant: Comparable & Sendable>: Sendable {
    /// Bounds of the machine.
    package struct Configuration: Sendable, Hashable {
        /// Events waiting (not yet in a round) past which a new request is refused with 429.
        package var maxPendingEvents: Int
        /// Rounds written at once (the sink's ``EventSink/maxConcurrentWrites``).
        package var maxConcurrentRounds: Int
        /// A round takes requests until it holds this many events (a single larger request is
        /// taken alone).
        package var maxRoundEvents: Int

        package init(maxPendingEvents: Int, maxConcurrentRounds: Int, maxRoundEvents: Int) {
            self.maxPendingEvents = maxPendingEvents
            self.maxConcurrentRounds = maxConcurrentRounds
            self.maxRoundEvents = maxRoundEvents
        }
    }

    /// A request's id, given by the driver.
    package typealias RequestID = Int
    /// A round's id, given by the machine.
    package typealias RoundID = Int

    /// What a submitted request is told when it is not queued.
    package enum SubmitAction: Sendable, Hashable {
        /// Queued; wait for an answer. Start rounds (``nextRound()``).
        case enqueued
        /// Over capacity: 429 at once.
        case refuseFull
        /// Shutting down: 503 at once.
        case refuseShuttingDown
    }

    /// A round to write: the requests whose events and rejects it holds.
    package struct Round: Sendable, Hashable {
        package var id: RoundID
        package var requests: [RequestID]
        package var events: Int
    }

    /// An answer to give a waiting request.
    package enum Answer: Sendable, Hashable {
        case committed
        case failed
        case timedOut
    }

    private struct Entry: Sendable {
        var id: RequestID
        var events: Int
        var deadline: Instant
    }

    private struct InFlight: Sendable {
        var entries: [Entry]
        /// Requests of the round not answered yet (their deadline has not passed).
        var unanswered: Set<RequestID>
    }

    package let configuration: Configuration
    private var pending: Deque<Entry> = []
    private var inFlight: [RoundID: InFlight] = [:]
    private var nextRoundID: RoundID = 0
    private var shuttingDown = false
    /// Events in requests not yet taken by a round.
    package private(set) var pendingEvents = 0

    package init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Requests waiting for a round.
    package var pendingRequests: Int { pending.count }
    /// Rounds being written.
    package var roundsInFlight: Int { inFlight.count }
    /// Whether a shutdown was asked for and nothing is left to write or answer.
    package var isDrained: Bool { shuttingDown && pending.isEmpty && inFlight.isEmpty }
    /// Whether new requests are refused.
    package var isShuttingDown: Bool { shuttingDown }

    /// A request with `events` events (and rejects) and its deadline.
    package mutating func submit(_ id: RequestID, events: Int, deadline: Instant) -> SubmitAction {
        if shuttingDown { return .refuseShuttingDown }
        // One request larger than the whole capacity still goes through when nothing waits.
        if pendingEvents > 0, pendingEvents + events > configuration.maxPendingEvents { return .refuseFull }
        pending.append(Entry(id: id, events: events, deadline: deadline))
        pendingEvents += events
        return .enqueued
    }

    /// The next round to write, when a writer is free and requests wait.
    package mutating func nextRound() -> Round? {
        guard inFlight.count < configuration.maxConcurrentRounds, !pending.isEmpty else { return nil }
        var entries: [Entry] = []
        var events = 0
        while let first = pending.first, entries.isEmpty || events + first.events <= configuration.maxRoundEvents {
            pending.removeFirst()
            entries.append(first)
            events += first.events
        }
        pendingEvents -= events
        let id = nextRoundID
        nextRoundID += 1
        inFlight[id] = InFlight(entries: entries, unanswered: Set(entries.map(\.id)))
        return Round(id: id, requests: entries.map(\.id), events: events)
    }

    /// Whether a failed write of `round` is worth retrying: someone still waits for it.
    package func isAwaited(_ round: RoundID) -> Bool {
        inFlight[round].map { !$0.unanswered.isEmpty } ?? false
    }

    /// The round was written and made durable: its unanswered requests are told `committed`.
    package mutating func roundSucceeded(_ round: RoundID) -> [(RequestID, Answer)] {
        finish(round, .committed)
    }

    /// The round gave up (retries exhausted or the error is permanent): its unanswered requests are
    /// told `failed`.
    package mutating func roundFailed(_ round: RoundID) -> [(RequestID, Answer)] {
        finish(round, .failed)
    }

    private mutating func finish(_ round: RoundID, _ answer: Answer) -> [(RequestID, Answer)] {
        guard let flight = inFlight.removeValue(forKey: round) else { return [] }
        return flight.entries.compactMap { flight.unanswered.contains($0.id) ? ($0.id, answer) : nil }
    }

    /// Requests whose deadline is at or before `now`: pending ones leave the queue (nothing of
    /// them is written), in-flight ones are answered now and their round's outcome is ignored.
    package mutating func expire(now: Instant) -> [(RequestID, Answer)] {
        var answers: [(RequestID, Answer)] = []
        if pending.contains(where: { $0.deadline <= now }) {
            var kept: Deque<Entry> = []
            for entry in pending {
                if entry.deadline <= now {
                    answers.append((entry.id, .timedOut))
                    pendingEvents -= entry.events
                } else {
                    kept.append(entry)
                }
            }
            pending = kept
        }
        for (round, flight) in inFlight {
            for entry in flight.entries where entry.deadline <= now && flight.unanswered.contains(entry.id) {
                inFlight[round]!.unanswered.remove(entry.id)
                answers.append((entry.id, .timedOut))
            }
        }
        return answers
    }

    /// The earliest deadline of a request not answered yet, for the driver's timer.
    package var earliestDeadline: Instant? {
        let waiting = pending.lazy.map(\.deadline).min()
        let flying = inFlight.values.lazy.flatMap { flight in
            flight.entries.lazy.filter { flight.unanswered.contains($0.id) }.map(\.deadline)
        }.min()
        switch (waiting, flying) {
        case let (a?, b?): return min(a, b)
        case let (a?, nil): return a
        case let (nil, b?): return b
        case (nil, nil): return nil
        }
    }

    /// Refuses new requests from now on; what is pending is still written.
    package mutating func beginShutdown() {
        shuttingDown = true
    }
}
