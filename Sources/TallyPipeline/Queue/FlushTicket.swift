import TallyCore

/// One `flush()` call in flight: done once every sink worker has flushed past it.
final class FlushTicket: Sendable {
    private let state: Locked<(remaining: Int, waiters: [CheckedContinuation<Void, Never>])>

    init(parts: Int) {
        state = Locked((parts, []))
    }

    /// One sink worker is done; the last one releases the waiters.
    func partDone() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.remaining -= 1
            guard state.remaining <= 0 else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Releases the waiters whatever the count (no sinks, or the pipeline is gone).
    func complete() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.remaining = 0
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if state.remaining <= 0 { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}
