/// Runs an operation under a ``RetryPolicy``: the one retry loop of the pipeline's sink workers and
/// the collector's commit rounds.
///
/// An attempt that fails is retried after the policy's jittered backoff, on `clock`, while
/// `shouldRetry` agrees (asked first), the error is transient (``SinkErrorClass``), attempts remain
/// and the caller is not cancelled; otherwise the driver stops and says why.
package struct RetryDriver: Sendable {
    /// Why the driver stopped without success.
    package enum Stop: Sendable, Equatable {
        /// The error was permanent: retrying could not help.
        case permanent
        /// The policy's attempts were used up (or the caller was cancelled before a retry).
        case exhausted
        /// `shouldRetry` said no.
        case declined
        /// Cancelled while waiting out a backoff.
        case cancelledWhileWaiting
    }

    /// How a run ended.
    package enum Outcome: Sendable {
        case succeeded(attempts: Int)
        case failed(any Error, attempts: Int, stop: Stop)
    }

    package let policy: RetryPolicy
    package let clock: any Clock<Duration>

    package init(policy: RetryPolicy, clock: any Clock<Duration> = ContinuousClock()) {
        self.policy = policy
        self.clock = clock
    }

    /// Runs `attempt` (given its number, from 1) until it succeeds or the driver stops;
    /// `willRetry` hears of each retry (error, the attempt that failed, the backoff) before the wait.
    package func run(
        shouldRetry: (any Error, _ attempt: Int) -> Bool = { _, _ in true },
        willRetry: (any Error, _ attempt: Int, _ backoff: Duration) -> Void = { _, _, _ in },
        _ attempt: (_ attempt: Int) async throws -> Void
    ) async -> Outcome {
        var number = 0
        while true {
            number += 1
            do {
                try await attempt(number)
                return .succeeded(attempts: number)
            } catch {
                let failure = error
                guard shouldRetry(error, number) else { return .failed(error, attempts: number, stop: .declined) }
                if SinkErrorClass.of(error) == .permanent {
                    return .failed(error, attempts: number, stop: .permanent)
                }
                guard number < policy.maxAttempts, !Task.isCancelled else {
                    return .failed(error, attempts: number, stop: .exhausted)
                }
                let backoff = backoff(afterAttempt: number)
                willRetry(error, number, backoff)
                do {
                    try await clock.sleep(for: backoff)
                } catch {
                    return .failed(failure, attempts: number, stop: .cancelledWhileWaiting)
                }
            }
        }
    }

    private func backoff(afterAttempt attempt: Int) -> Duration {
        // The generator is a local of this synchronous function, not an inout `var` of an async
        // frame: that empty struct had no valid address there under ThreadSanitizer.
        var random = SystemRandomNumberGenerator()
        return policy.jitteredBackoff(afterAttempt: attempt, using: &random)
    }
}
