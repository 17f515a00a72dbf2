import TallyCore
public import TallyPipeline

/// Keeps rejects in memory, for tests that check what was refused or given up on: pass it as an
/// `EventPipeline`'s `deadLetters` (or wherever a `RejectSink` goes), then read ``rejects`` (each
/// event, its reason and origin). ``waitForRejects(count:)`` waits for them without sleeping, and
/// ``fail(with:)`` makes stores throw.
public final class InMemoryRejectSink: RejectSink, Sendable {
    private struct State {
        var rejects: [Reject] = []
        var waiters: [CheckedContinuation<Void, Never>] = []
        var failure: (any Error & Sendable)?
    }

    private let state = Locked(State())

    /// Creates an empty sink.
    public init() {}

    /// Every reject kept, in order.
    public var rejects: [Reject] { state.withLock { $0.rejects } }

    /// Makes every ``store(_:)`` from now on throw `error` (nil: store again).
    public func fail(with error: (any Error & Sendable)?) {
        state.withLock { $0.failure = error }
    }

    /// Returns once at least `count` rejects arrived.
    public func waitForRejects(count: Int) async {
        while state.withLock({ $0.rejects.count }) < count {
            await withCheckedContinuation { continuation in
                let arrived = state.withLock { state -> Bool in
                    if state.rejects.count >= count { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if arrived { continuation.resume() }
            }
        }
    }

    /// Keeps `rejects` and wakes the tests waiting for them; throws what ``fail(with:)`` set.
    public func store(_ rejects: [Reject]) async throws {
        let waiters = try state.withLock { state in
            if let failure = state.failure { throw failure }
            state.rejects += rejects
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
