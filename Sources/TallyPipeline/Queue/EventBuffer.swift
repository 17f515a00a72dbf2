import DequeModule
import TallyCore

/// The pipeline's bounded event queue, between producers and the batcher.
///
/// Producers never touch an actor: `offer` is one lock and a deque append, so `track()` stays in
/// the sub-microsecond range. The single consumer (the batcher) waits until a batch is full, an
/// interval tick or a flush asks for a partial batch, or the queue is closed.
final class EventBuffer: Sendable {
    /// What the batcher does next.
    enum Work {
        /// The queued events were moved into the deque passed to ``next(reusing:)``.
        case events
        case flush(FlushTicket)
    }

    private struct Waiter {
        var id: UInt64
        var continuation: UnsafeContinuation<Void, any Error>
    }

    private struct State {
        var events = Deque<EventEnvelope>()
        /// Events ever accepted; an event's sequence number is the value after its append.
        var accepted: UInt64 = 0
        /// Events that left the queue, taken or dropped.
        var removed: UInt64 = 0
        var dropped: UInt64 = 0
        var unreportedDrops: UInt64 = 0
        var refusedAfterClose: UInt64 = 0
        var isClosed = false
        var isFinished = false
        var partialBatchDue = false
        var flushes = Deque<(target: UInt64, ticket: FlushTicket)>()
        // Unsafe rather than Checked continuations: `CheckedContinuation` is resilient, so every copy of
        // an optional one goes through value witnesses, which tripled the cost of `offer`.
        var consumer: UnsafeContinuation<Void, Never>?
        var producers = Deque<Waiter>()
        var nextWaiterID: UInt64 = 0
    }

    let capacity: Int
    let maxBatchSize: Int
    let policy: OverflowPolicy
    private let state: Locked<State>

    init(capacity: Int, maxBatchSize: Int, policy: OverflowPolicy) {
        self.capacity = capacity
        // A batch larger than the queue would never fill: it would wait for the flush interval.
        self.maxBatchSize = min(maxBatchSize, capacity)
        self.policy = policy
        var initial = State()
        initial.events.reserveCapacity(min(capacity, 65_536))
        state = Locked(initial)
    }

    // MARK: Producers

    /// Appends without ever waiting. Returns false when the event was refused: the queue is closed,
    /// or it is full under ``OverflowPolicy/block``.
    @inline(__always)
    func offer(_ event: EventEnvelope) -> Bool {
        let (accepted, consumer) = state.withLock { state -> (Bool, UnsafeContinuation<Void, Never>?) in
            if state.isClosed {
                state.refusedAfterClose &+= 1
                return (false, nil)
            }
            if state.events.count >= capacity {
                // Counted as accepted and dropped either way, so that kept == accepted - dropped.
                state.dropped &+= 1
                state.unreportedDrops &+= 1
                state.removed &+= 1
                guard policy == .dropOldest else {
                    state.accepted &+= 1
                    return (false, nil)
                }
                state.events.removeFirst()
            }
            state.events.append(event)
            state.accepted &+= 1
            return (true, Self.consumerToWake(&state, maxBatchSize: maxBatchSize))
        }
        consumer?.resume()
        return accepted
    }

    /// Appends `events` in order, waiting for room under ``OverflowPolicy/block`` (dropping the
    /// oldest under ``OverflowPolicy/dropOldest``). Throws ``PipelineError`` once the queue is
    /// closed, with the events not yet appended left out; `CancellationError` when cancelled.
    func append(contentsOf events: some Collection<EventEnvelope>) async throws {
        var remaining = events[...]
        while !remaining.isEmpty {
            if policy == .dropOldest {
                for event in remaining where !offer(event) {
                    throw PipelineError(code: .closed, message: "the pipeline is shut down")
                }
                return
            }
            let (appended, consumer) = try state.withLock {
                state -> (Int, UnsafeContinuation<Void, Never>?) in
                if state.isClosed {
                    state.refusedAfterClose &+= UInt64(remaining.count)
                    throw PipelineError(code: .closed, message: "the pipeline is shut down")
                }
                let room = min(capacity - state.events.count, remaining.count)
                guard room > 0 else { return (0, nil) }
                state.events.append(contentsOf: remaining.prefix(room))
                state.accepted &+= UInt64(room)
                return (room, Self.consumerToWake(&state, maxBatchSize: maxBatchSize))
            }
            consumer?.resume()
            remaining = remaining.dropFirst(appended)
            if !remaining.isEmpty && appended == 0 { try await waitForRoom() }
        }
    }

    private func waitForRoom() async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiterID &+= 1
            return state.nextWaiterID
        }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                enum Now { case wait, retry, cancelled }
                let now = state.withLock { state -> Now in
                    if Task.isCancelled { return .cancelled }
                    if state.isClosed || state.events.count < capacity { return .retry }
                    state.producers.append(Waiter(id: id, continuation: continuation))
                    return .wait
                }
                switch now {
                case .wait: break
                case .retry: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.producers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.producers.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    // MARK: Control

    /// An interval passed: the batcher takes what is queued even if it is less than a batch.
    /// Returns the drops since the last tick, to be reported once.
    func tick() -> UInt64 {
        let (drops, consumer) = state.withLock { state -> (UInt64, UnsafeContinuation<Void, Never>?) in
            let drops = state.unreportedDrops
            state.unreportedDrops = 0
            guard !state.events.isEmpty else { return (drops, nil) }
            state.partialBatchDue = true
            return (drops, state.consumer.take())
        }
        consumer?.resume()
        return drops
    }

    /// Queues a flush: `ticket` reaches the batcher once every event accepted so far left the queue.
    /// Completes it at once when the batcher is gone.
    func requestFlush(_ ticket: FlushTicket) {
        let (finished, consumer) = state.withLock { state -> (Bool, UnsafeContinuation<Void, Never>?) in
            if state.isFinished { return (true, nil) }
            state.flushes.append((state.accepted, ticket))
            return (false, state.consumer.take())
        }
        if finished { ticket.complete() }
        consumer?.resume()
    }

    /// Refuses new events; the batcher drains what is queued, then finishes.
    func close() {
        let (consumer, producers) = state.withLock { state in
            state.isClosed = true
            defer { state.producers = [] }
            return (state.consumer.take(), state.producers)
        }
        consumer?.resume()
        for producer in producers { producer.continuation.resume() }
    }

    var isClosed: Bool { state.withLock { $0.isClosed } }

    // MARK: Consumer

    /// The next events or flush for the batcher; nil once closed and drained.
    ///
    /// Takes every queued event at once by swapping the queue with `spare` (an emptied deque the
    /// batcher hands back), so the lock is held for a swap, not for a copy, however long the queue.
    /// The batcher splits what it got into batches of at most `maxBatchSize`.
    func next(reusing spare: inout Deque<EventEnvelope>) async -> Work? {
        while true {
            enum Step { case events([Waiter]), flush(FlushTicket), done([FlushTicket]), wait }
            let step = state.withLock { state -> Step in
                if let flush = state.flushes.first, flush.target <= state.removed {
                    state.flushes.removeFirst()
                    return .flush(flush.ticket)
                }
                let wantsPartial = state.partialBatchDue || state.isClosed || !state.flushes.isEmpty
                if state.events.count >= maxBatchSize || (wantsPartial && !state.events.isEmpty) {
                    swap(&state.events, &spare)
                    state.removed &+= UInt64(spare.count)
                    state.partialBatchDue = false
                    defer { state.producers.removeAll() }
                    // Not Array(emptyDeque): that writes a zero count into the shared empty-array
                    // storage, which ThreadSanitizer reports as a race between pipelines.
                    return .events(state.producers.isEmpty ? [] : Array(state.producers))
                }
                if state.isClosed {
                    state.isFinished = true
                    defer { state.flushes = [] }
                    return .done(state.flushes.map(\.ticket))
                }
                return .wait
            }
            switch step {
            case .events(let producers):
                for producer in producers { producer.continuation.resume() }
                return .events
            case .flush(let ticket):
                return .flush(ticket)
            case .done(let tickets):
                for ticket in tickets { ticket.complete() }
                return nil
            case .wait:
                await withUnsafeContinuation { continuation in
                    let ready = state.withLock { state -> Bool in
                        let due =
                            state.events.count >= maxBatchSize || state.isClosed || state.partialBatchDue
                            || state.flushes.first.map { $0.target <= state.removed || !state.events.isEmpty } == true
                        if !due { state.consumer = continuation }
                        return due
                    }
                    if ready { continuation.resume() }
                }
            }
        }
    }

    // MARK: Statistics

    struct Counts {
        var accepted: UInt64
        var dropped: UInt64
        var refusedAfterClose: UInt64
        var queued: Int
    }

    var counts: Counts {
        state.withLock {
            Counts(
                accepted: $0.accepted,
                dropped: $0.dropped,
                refusedAfterClose: $0.refusedAfterClose,
                queued: $0.events.count
            )
        }
    }

    @inline(__always)
    private static func consumerToWake(_ state: inout State, maxBatchSize: Int) -> UnsafeContinuation<Void, Never>? {
        guard state.events.count >= maxBatchSize || !state.flushes.isEmpty else { return nil }
        return state.consumer.take()
    }
}
