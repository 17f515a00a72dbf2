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

    // Unsafe rather than Checked continuations: `CheckedContinuation` is resilient, so every copy of
    // an optional one goes through value witnesses, which tripled the cost of `offer`.
    typealias StateMachine = EventBufferStateMachine<
        UnsafeContinuation<Void, Never>, UnsafeContinuation<Void, any Error>
    >

    let capacity: Int
    let maxBatchSize: Int
    let policy: OverflowPolicy
    private let state: Locked<StateMachine>

    init(capacity: Int, maxBatchSize: Int, policy: OverflowPolicy) {
        let machine = StateMachine(capacity: capacity, maxBatchSize: maxBatchSize, policy: policy)
        self.capacity = capacity
        self.maxBatchSize = machine.maxBatchSize
        self.policy = policy
        state = Locked(machine)
    }

    // MARK: Producers

    /// Appends without ever waiting. Returns false when the event was refused: the queue is closed,
    /// or it is full under ``OverflowPolicy/block``.
    @inline(__always)
    func offer(_ event: EventEnvelope) -> Bool {
        switch state.withLock({ $0.offer(event) }) {
        case .accepted(let consumer, let ticker):
            consumer?.resume()
            ticker?.resume()
            return true
        case .refused(let ticker):
            ticker?.resume()
            return false
        }
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
            switch state.withLock({ $0.append(remaining) }) {
            case .closed:
                throw PipelineError(code: .closed, message: "the pipeline is shut down")
            case .appended(let count, let consumer, let ticker):
                consumer?.resume()
                ticker?.resume()
                remaining = remaining.dropFirst(count)
                if !remaining.isEmpty && count == 0 { try await waitForRoom() }
            }
        }
    }

    private func waitForRoom() async throws {
        let id = state.withLock { $0.makeWaiterID() }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                let isCancelled = Task.isCancelled
                switch state.withLock({ $0.waitForRoom(id: id, producer: continuation, isCancelled: isCancelled) }) {
                case .suspended: break
                case .retry: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            state.withLock { $0.cancelWaiter(id: id) }?.resume(throwing: CancellationError())
        }
    }

    // MARK: Control

    /// An interval passed: the batcher takes what is queued even if it is less than a batch.
    /// Returns the drops since the last tick, to be reported once.
    func tick() -> UInt64 {
        let (drops, consumer) = state.withLock { $0.tick() }
        consumer?.resume()
        return drops
    }

    /// Returns once there is something for the interval ticker to do: events queued, drops to
    /// report, the queue closed, or the task cancelled. Until then the ticker sleeps on no clock.
    func waitUntilTickable() async {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                // Read under the lock that `onCancel` takes too: a cancel flagged before this found
                // nothing to resume, so the ticker must not idle; one flagged after finds it stored.
                switch state.withLock({ $0.idleTicker(continuation, isCancelled: Task.isCancelled) }) {
                case .suspended: break
                case .resumeNow: continuation.resume()
                }
            }
        } onCancel: {
            state.withLock { $0.cancelIdleTicker() }?.resume()
        }
    }

    /// Whether the ticker waits for an event rather than on its clock.
    var isTickerIdle: Bool { state.withLock { $0.isTickerIdle } }

    /// Queues a flush: `ticket` reaches the batcher once every event accepted so far left the queue.
    /// Completes it at once when the batcher is gone.
    func requestFlush(_ ticket: FlushTicket) {
        switch state.withLock({ $0.requestFlush(ticket) }) {
        case .completeNow: ticket.complete()
        case .queued(let consumer): consumer?.resume()
        }
    }

    /// Refuses new events; the batcher drains what is queued, then finishes.
    func close() {
        let action = state.withLock { $0.close() }
        action.consumer?.resume()
        action.ticker?.resume()
        for producer in action.producers { producer.resume() }
    }

    var isClosed: Bool { state.withLock { $0.lifecycle != .accepting } }

    // MARK: Consumer

    /// The next events or flush for the batcher; nil once closed and drained.
    ///
    /// Takes every queued event at once by swapping the queue with `spare` (an emptied deque the
    /// batcher hands back), so the lock is held for a swap, not for a copy, however long the queue.
    /// The batcher splits what it got into batches of at most `maxBatchSize`.
    func next(reusing spare: inout Deque<EventEnvelope>) async -> Work? {
        while true {
            switch state.withLock({ $0.next(swappingWith: &spare) }) {
            case .events(let producers):
                for producer in producers { producer.resume() }
                return .events
            case .flush(let ticket):
                return .flush(ticket)
            case .finished(let tickets):
                for ticket in tickets { ticket.complete() }
                return nil
            case .wait:
                await withUnsafeContinuation { continuation in
                    if case .resumeNow = state.withLock({ $0.suspendConsumer(continuation) }) { continuation.resume() }
                }
            }
        }
    }

    // MARK: Statistics

    var counts: StateMachine.Counts { state.withLock { $0.counts } }
}
