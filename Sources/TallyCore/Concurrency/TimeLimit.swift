/// The error of ``withTimeLimit(_:clock:_:)``: the operation ran out of time.
package struct TimeLimitExceeded: Error, Sendable, CustomStringConvertible {
    package let limit: Duration
    package var description: String { "took longer than \(limit)" }
}

/// Runs `operation` for at most `limit`: past it the operation's task is cancelled, this waits for
/// it to return (nothing keeps running behind the caller's back), and throws
/// ``TimeLimitExceeded``. An operation that finishes first returns or throws as it did.
package func withTimeLimit<Value: Sendable>(
    _ limit: Duration,
    clock: ContinuousClock = ContinuousClock(),
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let outcome = await withTaskGroup(of: TimeLimitOutcome<Value>.self) { group -> TimeLimitOutcome<Value> in
        group.addTask {
            do {
                return .finished(.success(try await operation()))
            } catch {
                return .finished(.failure(error))
            }
        }
        group.addTask {
            do {
                try await clock.sleep(for: limit)
                return .timeUp
            } catch {
                return .timerCancelled
            }
        }
        var passed = false
        while let next = await group.next() {
            switch next {
            case .finished(let result):
                group.cancelAll()
                if passed, case .failure = result { return .timeUp }
                return .finished(result)
            case .timeUp:
                passed = true
                group.cancelAll()
            case .timerCancelled:
                continue
            }
        }
        return .timerCancelled
    }
    switch outcome {
    case .finished(let result): return try result.get()
    case .timeUp: throw TimeLimitExceeded(limit: limit)
    case .timerCancelled: throw CancellationError()
    }
}

private enum TimeLimitOutcome<Value: Sendable>: Sendable {
    case finished(Result<Value, any Error>)
    case timeUp
    case timerCancelled
}
