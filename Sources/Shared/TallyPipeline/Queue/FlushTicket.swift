import TallyCore

/// One `flush()` call in flight: done once every sink worker has flushed past it.
final class FlushTicket: Sendable {
    private struct State {
        var remaining: Int
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state: Locked<State>

    init(parts: Int) {
        state = Locked(State(remaining: parts))
    }

    /// One sink worker is done; the last one releases the waiters.
    func partDone() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.remaining -= 1
            guard state.remaining <= 0 else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Releases the waiters whatever the count (no sinks, or the pipeline is gone).
    func complete() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.remaining = 0
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until the ticket is done, or the calling task is cancelled (the flush goes on).
    func wait() async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let done = state.withLock { state -> Bool in
                    if state.remaining <= 0 || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
