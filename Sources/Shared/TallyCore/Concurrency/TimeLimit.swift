import Dispatch

/// The error of ``withTimeLimit(_:_:)``: the operation ran out of time.
package struct TimeLimitExceeded: Error, Sendable, CustomStringConvertible {
    package let limit: Duration
    package var description: String { "took longer than \(limit)" }
}

/// Runs `operation` for at most `limit` from its start: past it the operation's task is cancelled,
/// this waits for it to return (structured, like swift-otel's export timeout: nothing keeps running
/// behind the caller's back), and throws ``TimeLimitExceeded``. An operation that finishes first returns or
/// throws as it did; one that completes despite the cancellation did its work and returns.
/// Cancelling the caller cancels the operation too, which then fails however it fails on
/// cancellation.
///
/// The clock is a dispatch timer, not a sleeping sibling task: a sibling is started, cancelled and
/// awaited in every call, each a trip through busy executors (~1 ms at full load on the 2-core
/// build machine; `tally serve`'s commit rounds read 1–8 % more events per second without it in
/// four paired runs). The operation stays in a child task, so that cancelling it leaves the caller
/// free to retry.
package func withTimeLimit<Value: Sendable>(
    _ limit: Duration,
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let expiry = Locked(Expiry())
    // A timer that fires after the call returned does nothing.
    defer { expiry.withLock { $0.finished = true } }
    return try await withThrowingTaskGroup(of: Value.self) { group in
        group.addTask {
            // The handle is used only while this task runs: it is withdrawn (under the lock the
            // timer cancels under) before the task ends.
            withUnsafeCurrentTask { task in
                expiry.withLock { state in state.task = task.map(RunningTask.init) }
            }
            // The clock starts when the operation does: time spent waiting for a thread (a busy
            // host, a starved pool) is not the operation's.
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(max(0, limit.nanoseconds)))) {
                expiry.withLock { state in
                    guard !state.finished else { return }
                    state.fired = true
                    state.task?.cancel()
                }
            }
            defer { expiry.withLock { $0.task = nil } }
            return try await operation()
        }
        do {
            guard let value = try await group.next() else { throw CancellationError() }
            return value
        } catch {
            if expiry.withLock({ $0.fired }) { throw TimeLimitExceeded(limit: limit) }
            throw error
        }
    }
}

private struct Expiry: Sendable {
    var fired = false
    var finished = false
    var task: RunningTask?
}

/// The operation's task, for the timer to cancel.
private struct RunningTask: @unchecked Sendable {
    // @unchecked: only touched under the `Expiry` lock, and only while the task runs.
    let task: UnsafeCurrentTask
    init(_ task: UnsafeCurrentTask) { self.task = task }
    func cancel() { task.cancel() }
}
