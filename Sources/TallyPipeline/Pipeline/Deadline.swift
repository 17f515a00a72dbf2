/// Runs `operation` for at most `timeout` on `clock`.
///
/// Past the deadline the operation's task is cancelled and this waits for it to return (structured,
/// like swift-otel's export timeout: nothing keeps running behind the caller's back, so a sink is
/// never called twice at once), then throws ``PipelineError/Code/timedOut``. A sink that ignores
/// cancellation therefore still holds its worker up; tally's sinks do not.
///
/// Cancelling the caller cancels the operation too, which then fails however it fails on
/// cancellation (not as a timeout).
func withDeadline(
    _ timeout: Duration,
    clock: any Clock<Duration>,
    what: @autoclosure () -> String,
    _ operation: @escaping @Sendable () async throws -> Void
) async throws {
    enum Outcome: Sendable {
        case finished((any Error)?)
        case deadlinePassed
        case timerCancelled
    }
    let outcome = await withTaskGroup(of: Outcome.self) { group -> Outcome in
        group.addTask {
            do {
                try await operation()
                return .finished(nil)
            } catch {
                return .finished(error)
            }
        }
        group.addTask {
            do {
                try await clock.sleep(for: timeout)
                return .deadlinePassed
            } catch {
                return .timerCancelled
            }
        }
        var passed = false
        while let next = await group.next() {
            switch next {
            case .finished(let error):
                group.cancelAll()
                // A write that completed despite the cancellation did its work: no need to redo it.
                return passed && error != nil ? Outcome.deadlinePassed : Outcome.finished(error)
            case .deadlinePassed:
                passed = true
                group.cancelAll()
            case .timerCancelled:
                // The caller was cancelled: the operation sees it too and reports it itself.
                continue
            }
        }
        return .timerCancelled
    }
    switch outcome {
    case .finished(let error):
        if let error { throw error }
    case .deadlinePassed:
        throw PipelineError(code: .timedOut, message: "\(what()) took longer than \(timeout)")
    case .timerCancelled:
        throw CancellationError()
    }
}
