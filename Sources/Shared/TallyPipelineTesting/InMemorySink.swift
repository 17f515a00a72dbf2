public import TallyCore
public import TallyPipeline

/// A sink that keeps every batch in memory, for tests of code that runs an `EventPipeline`.
///
/// ``waitForEvents(count:)`` lets a test wait for delivery without sleeping. Call
/// ``fail(with:times:)`` to make writes throw, and set ``isStalled`` to make them hang until
/// cleared (a server that stopped answering), to see retries, deadlines and dead letters at work.
///
/// ```swift
/// let sink = InMemorySink()
/// let pipeline = EventPipeline(sinks: [sink])
/// // run the pipeline, send events …
/// await sink.waitForEvents(count: 2)
/// #expect(sink.events.map(\.name) == ["search_viewed", "search_submitted"])
/// ```
public final class InMemorySink: EventSink, Sendable {
    private struct State {
        var batches: [[EventEnvelope]] = []
        var eventCount = 0
        var writeAttempts = 0
        var flushCount = 0
        var isShutDown = false
        var failure: (any Error)?
        var remainingFailures = Int.max
        var isStalled = false
        var stallWaiters: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var countWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var attemptWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
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

    /// While true, writes wait (a sink whose server stopped answering) until cleared, or until
    /// their task is cancelled (they then throw `CancellationError`, as a network call would).
    public var isStalled: Bool {
        get { state.withLock { $0.isStalled } }
        set {
            let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
                state.isStalled = newValue
                guard !newValue else { return [] }
                defer { state.stallWaiters = [] }
                return state.stallWaiters.map(\.continuation)
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

    /// Returns once ``write(_:)`` has been called at least `count` times (stalled, failed or not):
    /// a test can wait for a write to be under way instead of sleeping.
    public func waitForWriteAttempts(count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.writeAttempts >= count { return true }
                state.attemptWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Records `batch`, unless a failure was set (``fail(with:times:)``) or writes are stalled.
    public func write(_ batch: [EventEnvelope]) async throws {
        let (stalled, id, attempted) = state.withLock { state -> (Bool, Int, [CheckedContinuation<Void, Never>]) in
            state.writeAttempts += 1
            let attempts = state.writeAttempts
            let attempted = state.attemptWaiters.filter { $0.count <= attempts }.map(\.continuation)
            state.attemptWaiters.removeAll { $0.count <= attempts }
            return (state.isStalled, attempts, attempted)
        }
        for waiter in attempted { waiter.resume() }
        if stalled {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let stillStalled = state.withLock { state -> Bool in
                        if state.isStalled && !Task.isCancelled { state.stallWaiters.append((id, continuation)) }
                        return state.isStalled
                    }
                    if !stillStalled {
                        continuation.resume()
                    } else if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                    guard let index = state.stallWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.stallWaiters.remove(at: index).continuation
                }
                waiter?.resume(throwing: CancellationError())
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

    /// Counts the call (``flushCount``); the events are already in memory.
    public func flush() async throws {
        state.withLock { $0.flushCount += 1 }
    }

    /// Marks the sink as shut down (``isShutDown``).
    public func shutdown() async throws {
        state.withLock { $0.isShutDown = true }
    }
}
