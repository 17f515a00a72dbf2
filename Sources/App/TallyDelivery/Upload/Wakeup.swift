import TallyCore

/// Wakes the uploader early: a count of waiting events reached, a flush, a shutdown. A signal
/// given while nobody waits is kept for the next wait.
final class Wakeup: Sendable {
    private struct State {
        var signalled = false
        var waiter: UnsafeContinuation<Void, Never>?
    }

    private let state = Locked(State())

    func signal() {
        let waiter = state.withLock { state -> UnsafeContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.signalled = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns after `timeout`, at a signal, or when the task is cancelled, whichever is first.
    func wait(timeout: Duration) async {
        guard timeout > .zero else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: timeout) }
            group.addTask { await self.waitForSignal() }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForSignal() async {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    if state.signalled {
                        state.signalled = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> UnsafeContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
