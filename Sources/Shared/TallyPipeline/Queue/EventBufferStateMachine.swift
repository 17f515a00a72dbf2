import DequeModule
import TallyCore

/// What an ``EventBuffer`` holds and where it is in its life, with every transition a pure
/// function returning what to do next: which waiter to resume, which flush to complete.
///
/// ``EventBuffer`` runs each transition under its lock and acts on the answer outside it; tests
/// drive the machine directly, with no task, lock or clock (as postgres-nio tests its connection
/// state machine). Generic over the waiters, so that tests can stand plain values in for
/// continuations.
struct EventBufferStateMachine<Consumer, Producer> {
    /// Where the buffer is in its life. It only moves forward.
    enum Lifecycle: Equatable {
        /// Events are taken.
        case accepting
        /// `close()` was called: events are refused, and the consumer takes what is queued.
        case draining
        /// The consumer was told there is nothing more; a flush requested now completes at once.
        case finished
    }

    enum OfferAction {
        /// Queued. Resume `consumer` (a batch is due) and `ticker` (it idled, and the event or a
        /// drop now needs it) where there is one.
        case accepted(resuming: Consumer?, ticker: Consumer?)
        /// Not queued: the buffer is closed, or full under `block` (then counted as dropped, and an
        /// idle `ticker` resumed to report the drop).
        case refused(ticker: Consumer?)
    }

    enum AppendAction {
        /// The first `count` events were queued (none when full); resume `consumer` and `ticker`
        /// where there is one.
        case appended(count: Int, resuming: Consumer?, ticker: Consumer?)
        /// The buffer is closed: nothing was queued.
        case closed
    }

    enum WaitForRoomAction {
        /// Still full: the producer was stored, to be resumed once there is room or on close.
        case suspended
        /// There is room (or the buffer closed) after all: resume the producer now, to try again.
        case retry
        /// The producer's task is cancelled: fail it.
        case cancelled
    }

    enum NextAction {
        /// The queued events were swapped into the caller's deque; resume the producers waiting
        /// for room.
        case events(resumingProducers: [Producer])
        /// Every event accepted before this flush left the queue: hand it on.
        case flush(FlushTicket)
        /// Closed and drained: complete these flushes and stop.
        case finished(completing: [FlushTicket])
        /// Nothing is due: suspend with ``suspendConsumer(_:)``.
        case wait
    }

    enum SuspendAction {
        /// Stored: a producer, tick, flush or close resumes it.
        case suspended
        /// Something became due meanwhile: resume it at once.
        case resumeNow
    }

    enum FlushRequestAction {
        /// The consumer is gone: complete the flush now.
        case completeNow
        /// Queued behind the events accepted so far; resume the consumer if it waits.
        case queued(resuming: Consumer?)
    }

    struct CloseAction {
        var consumer: Consumer?
        var ticker: Consumer?
        var producers: [Producer]
    }

    struct Counts {
        var accepted: UInt64
        var dropped: UInt64
        var refusedAfterClose: UInt64
        var queued: Int
    }

    let capacity: Int
    let maxBatchSize: Int
    let policy: OverflowPolicy

    private(set) var lifecycle = Lifecycle.accepting
    private(set) var events = Deque<EventEnvelope>()
    /// Events ever accepted; an event's sequence number is the value after its append.
    private var accepted: UInt64 = 0
    /// Events that left the queue, taken or dropped.
    private var removed: UInt64 = 0
    private var dropped: UInt64 = 0
    private var unreportedDrops: UInt64 = 0
    private var refusedAfterClose: UInt64 = 0
    private var partialBatchDue = false
    private var flushes = Deque<(target: UInt64, ticket: FlushTicket)>()
    private var consumer: Consumer?
    /// The interval ticker, idle while the queue is empty (an app's pipeline otherwise woke its
    /// process every interval with nothing to do); the next event resumes it.
    private var idleTicker: Consumer?
    private var producers = Deque<(id: UInt64, producer: Producer)>()
    private var lastWaiterID: UInt64 = 0

    init(capacity: Int, maxBatchSize: Int, policy: OverflowPolicy) {
        self.capacity = capacity
        // A batch larger than the queue would never fill: it would wait for the flush interval.
        self.maxBatchSize = min(maxBatchSize, capacity)
        self.policy = policy
        events.reserveCapacity(min(capacity, 65_536))
    }

    var counts: Counts {
        Counts(accepted: accepted, dropped: dropped, refusedAfterClose: refusedAfterClose, queued: events.count)
    }

    // MARK: Producers

    @inline(__always)
    mutating func offer(_ event: EventEnvelope) -> OfferAction {
        guard lifecycle == .accepting else {
            refusedAfterClose &+= 1
            return .refused(ticker: nil)
        }
        if events.count >= capacity {
            // Counted as accepted and dropped either way, so that kept == accepted - dropped.
            dropped &+= 1
            unreportedDrops &+= 1
            removed &+= 1
            guard policy == .dropOldest else {
                accepted &+= 1
                return .refused(ticker: idleTicker.take())
            }
            events.removeFirst()
        }
        events.append(event)
        accepted &+= 1
        let consumer = consumerToWake()
        // A consumer woken now takes the event: the ticker is needed only for a drop to report.
        let ticker = consumer == nil || unreportedDrops > 0 ? idleTicker.take() : nil
        return .accepted(resuming: consumer, ticker: ticker)
    }

    /// Queues as many of `remaining` as there is room for, from the front.
    mutating func append<Events: Collection<EventEnvelope>>(_ remaining: Events) -> AppendAction {
        guard lifecycle == .accepting else {
            refusedAfterClose &+= UInt64(remaining.count)
            return .closed
        }
        let room = min(capacity - events.count, remaining.count)
        guard room > 0 else { return .appended(count: 0, resuming: nil, ticker: nil) }
        events.append(contentsOf: remaining.prefix(room))
        accepted &+= UInt64(room)
        return .appended(count: room, resuming: consumerToWake(), ticker: idleTicker.take())
    }

    /// A new id for a producer about to wait, so that its cancellation can find it.
    mutating func makeWaiterID() -> UInt64 {
        lastWaiterID &+= 1
        return lastWaiterID
    }

    mutating func waitForRoom(id: UInt64, producer: Producer, isCancelled: Bool) -> WaitForRoomAction {
        if isCancelled { return .cancelled }
        if lifecycle != .accepting || events.count < capacity { return .retry }
        producers.append((id, producer))
        return .suspended
    }

    /// The waiting producer `id`, removed; nil when it was already resumed.
    mutating func cancelWaiter(id: UInt64) -> Producer? {
        guard let index = producers.firstIndex(where: { $0.id == id }) else { return nil }
        return producers.remove(at: index).producer
    }

    // MARK: Control

    /// An interval passed: what is queued is due even if less than a batch. Returns the drops
    /// since the last tick, to be reported once.
    mutating func tick() -> (drops: UInt64, resuming: Consumer?) {
        let drops = unreportedDrops
        unreportedDrops = 0
        guard !events.isEmpty else { return (drops, nil) }
        partialBatchDue = true
        return (drops, consumer.take())
    }

    /// Stores the ticker while nothing is queued and no drops wait to be reported: the next event
    /// (or ``close()``, or ``cancelIdleTicker()``) resumes it. Otherwise, or when its task is
    /// already cancelled, it ticks on (`.resumeNow`).
    mutating func idleTicker(_ ticker: Consumer, isCancelled: Bool = false) -> SuspendAction {
        guard !isCancelled, lifecycle == .accepting, events.isEmpty, unreportedDrops == 0 else { return .resumeNow }
        idleTicker = ticker
        return .suspended
    }

    var isTickerIdle: Bool { idleTicker != nil }

    /// The idle ticker, taken back (its task was cancelled); nil when something resumed it first.
    mutating func cancelIdleTicker() -> Consumer? {
        idleTicker.take()
    }

    mutating func requestFlush(_ ticket: FlushTicket) -> FlushRequestAction {
        if lifecycle == .finished { return .completeNow }
        flushes.append((accepted, ticket))
        return .queued(resuming: consumer.take())
    }

    mutating func close() -> CloseAction {
        if lifecycle == .accepting { lifecycle = .draining }
        defer { producers = [] }
        return CloseAction(
            consumer: consumer.take(),
            ticker: idleTicker.take(),
            producers: producers.isEmpty ? [] : producers.map(\.producer)
        )
    }

    // MARK: Consumer

    /// What the consumer does next. On `.events`, the queue was swapped with `spare` (an emptied
    /// deque handed back), so the lock is held for a swap, not a copy, however long the queue.
    mutating func next(swappingWith spare: inout Deque<EventEnvelope>) -> NextAction {
        if let flush = flushes.first, flush.target <= removed {
            flushes.removeFirst()
            return .flush(flush.ticket)
        }
        let wantsPartial = partialBatchDue || lifecycle != .accepting || !flushes.isEmpty
        if events.count >= maxBatchSize || (wantsPartial && !events.isEmpty) {
            swap(&events, &spare)
            removed &+= UInt64(spare.count)
            partialBatchDue = false
            defer { producers.removeAll() }
            // Not Array(emptyDeque): that writes a zero count into the shared empty-array storage,
            // which ThreadSanitizer reports as a race between pipelines.
            return .events(resumingProducers: producers.isEmpty ? [] : producers.map(\.producer))
        }
        if lifecycle != .accepting {
            lifecycle = .finished
            defer { flushes = [] }
            return .finished(completing: flushes.map(\.ticket))
        }
        return .wait
    }

    /// Stores the consumer after ``next(swappingWith:)`` said `.wait`, unless something became
    /// due since (the lock was released in between).
    mutating func suspendConsumer(_ waiting: Consumer) -> SuspendAction {
        let due =
            events.count >= maxBatchSize || lifecycle != .accepting || partialBatchDue
            || flushes.first.map { $0.target <= removed || !events.isEmpty } == true
        if due { return .resumeNow }
        consumer = waiting
        return .suspended
    }

    @inline(__always)
    private mutating func consumerToWake() -> Consumer? {
        guard events.count >= maxBatchSize || !flushes.isEmpty else { return nil }
        return consumer.take()
    }
}

// The buffer keeps the machine in a `Locked`, which is Sendable only when its state is; the
// machine holds events, tickets and the waiters, so it is Sendable when the waiters are.
extension EventBufferStateMachine: Sendable where Consumer: Sendable, Producer: Sendable {}
