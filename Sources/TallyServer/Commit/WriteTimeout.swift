import Dispatch
import TallyCore

/// A round's write did not finish in time; it was cancelled.
struct WriteTimeout: Error, CustomStringConvertible {
    var timeout: Duration
    var description: String { "the sink did not finish the write within \(timeout)" }

    /// Runs `body` in a child task and cancels it when it runs past `timeout` (then throws
    /// ``WriteTimeout``, once `body` has returned).
    ///
    /// The clock is a dispatch timer, not a sleeping sibling task: a sibling is started, cancelled
    /// and awaited in every commit round, each a trip through the busy event loops (~1 ms at full
    /// load on the 2-core build machine; writing with no timeout task at all read 1–8 % more
    /// events per second in four paired runs). The write itself stays in a child task, so that
    /// cancelling it leaves the round free to retry.
    static func run(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> Void) async throws {
        let expiry = Locked(Expiry())
        let timer = DispatchWorkItem {
            expiry.withLock { state in
                state.fired = true
                state.task?.cancel()
            }
        }
        DispatchQueue.global().asyncAfter(
            deadline: .now() + .nanoseconds(Int(Collector.nanoseconds(timeout))),
            execute: timer
        )
        defer { timer.cancel() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // The handle is used only while this task runs: it is withdrawn (under the lock the
                // timer cancels under) before the task ends.
                withUnsafeCurrentTask { task in
                    expiry.withLock { state in
                        if state.fired { task?.cancel() } else { state.task = task.map(TaskHandle.init) }
                    }
                }
                defer { expiry.withLock { $0.task = nil } }
                try await body()
            }
            do {
                try await group.next()
            } catch {
                if expiry.withLock({ $0.fired }) { throw WriteTimeout(timeout: timeout) }
                throw error
            }
        }
    }

    private struct Expiry: Sendable {
        var fired = false
        var task: TaskHandle?
    }

    /// The running write's task, for the timer to cancel.
    private struct TaskHandle: @unchecked Sendable {
        // @unchecked: only touched under the `Expiry` lock, and only while the task runs.
        let task: UnsafeCurrentTask
        init(_ task: UnsafeCurrentTask) { self.task = task }
        func cancel() { task.cancel() }
    }
}
