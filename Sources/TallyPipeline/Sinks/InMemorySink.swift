public import TallyCore

/// A sink that keeps every batch in memory: for tests and for embedding.
///
/// ``waitForEvents(count:)`` lets a test wait for delivery without sleeping. Call ``fail(with:times:)`` to
/// make writes throw, ``isStalled`` to make them hang until cleared.
public final class InMemorySink: EventSink, @unchecked Sendable {
    private struct State {
        var batches: [[EventEnvelope]] = []
        var eventCount = 0
        var writeAttempts = 0
        var flushCount = 0
        var isShutDown = false
        var failure: (any Error)?
        var remainingFailures = Int.max
        var isStalled = false
        var stallWaiters: [CheckedContinuation<Void, Never>] = []
        var countWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    /// The name given at creation.
    public let name: String
    private let state = Locked(State())

    /// Creates an empty sink.
    public init(name: String = "memory") {
        self.name = name
    }

    /// Every delivered batch, in order.
    public var batches: [[EventEnvelope]] { state.withLock { $0.batches } }
    /// Every delivered event, in order.
    public var events: [EventEnvelope] { state.withLock { $0.batches.flatMap { $0 } } }
    /// How many events were delivered.
    public var eventCount: Int { state.withLock { $0.eventCount } }
    /// How many times ``write(_:)`` was called, failures included.
    public var writeAttempts: Int { state.withLock { $0.writeAttempts } }
    /// How many times ``flush()`` was called.
    public var flushCount: Int { state.withLock { $0.flushCount } }
    /// Whether ``shutdown()`` was called.
    public var isShutDown: Bool { state.withLock { $0.isShutDown } }

    /// Makes the next `times` writes throw `error` (all of them when `times` is nil); nil stops failing.
    public func fail(with error: (any Error)?, times: Int? = nil) {
        state.withLock {
            $0.failure = error
            $0.remainingFailures = times ?? Int.max
        }
    }

    /// While true, writes wait (a sink whose server stopped answering).
    public var isStalled: Bool {
        get { state.withLock { $0.isStalled } }
        set {
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.isStalled = newValue
                guard !newValue else { return [] }
                defer { state.stallWaiters = [] }
                return state.stallWaiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Returns once at least `count` events were delivered.
    public func waitForEvents(count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.eventCount >= count { return true }
                state.countWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    public func write(_ batch: [EventEnvelope]) async throws {
        let stalled = state.withLock { state -> Bool in
            state.writeAttempts += 1
            return state.isStalled
        }
        if stalled {
            await withCheckedContinuation { continuation in
                let stillStalled = state.withLock { state -> Bool in
                    if state.isStalled { state.stallWaiters.append(continuation) }
                    return state.isStalled
                }
                if !stillStalled { continuation.resume() }
            }
        }
        let ready = try state.withLock { state -> [CheckedContinuation<Void, Never>] in
            if let failure = state.failure, state.remainingFailures > 0 {
                state.remainingFailures -= 1
                if state.remainingFailures == 0 { state.failure = nil }
                throw failure
            }
            state.batches.append(batch)
            state.eventCount += batch.count
            let total = state.eventCount
            let ready = state.countWaiters.filter { $0.count <= total }.map(\.continuation)
            state.countWaiters.removeAll { $0.count <= total }
            return ready
        }
        for waiter in ready { waiter.resume() }
    }

    public func flush() async throws {
        state.withLock { $0.flushCount += 1 }
    }

    public func shutdown() async throws {
        state.withLock { $0.isShutDown = true }
    }
}
