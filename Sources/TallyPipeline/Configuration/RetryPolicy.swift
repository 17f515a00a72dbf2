/// How a failed sink write is retried before its batch goes to the dead-letter sink.
///
/// Attempt `n` (counting from 1) that fails waits
/// `min(initialBackoff × multiplierⁿ⁻¹, maxBackoff)`, reduced by a random fraction of up to
/// ``jitter`` so that many writers failing together do not retry in lockstep.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first one included. `1` means no retry.
    public var maxAttempts: Int
    /// The wait after the first failure.
    public var initialBackoff: Duration
    /// How much each wait grows.
    public var multiplier: Double
    /// The longest wait.
    public var maxBackoff: Duration
    /// The fraction (`0...1`) of each wait that is random.
    public var jitter: Double

    /// Five attempts over about 1.5 s: 100 ms, 200 ms, 400 ms, 800 ms, with 20 % jitter.
    public init(
        maxAttempts: Int = 5,
        initialBackoff: Duration = .milliseconds(100),
        multiplier: Double = 2,
        maxBackoff: Duration = .seconds(10),
        jitter: Double = 0.2
    ) {
        precondition(maxAttempts >= 1, "maxAttempts must be at least 1")
        precondition((0...1).contains(jitter), "jitter must be within 0...1")
        self.maxAttempts = maxAttempts
        self.initialBackoff = initialBackoff
        self.multiplier = multiplier
        self.maxBackoff = maxBackoff
        self.jitter = jitter
    }

    /// Never retry: the first failure dead-letters the batch.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The wait after failed attempt `attempt` (from 1), before jitter.
    public func backoff(afterAttempt attempt: Int) -> Duration {
        let factor = pow(multiplier, Double(max(attempt - 1, 0)))
        let scaled = initialBackoff * factor
        return scaled < maxBackoff ? scaled : maxBackoff
    }

    /// ``backoff(afterAttempt:)`` with jitter drawn from `generator`.
    package func jitteredBackoff(
        afterAttempt attempt: Int,
        using generator: inout some RandomNumberGenerator
    ) -> Duration {
        let base = backoff(afterAttempt: attempt)
        guard jitter > 0 else { return base }
        return base * (1 - jitter * Double.random(in: 0..<1, using: &generator))
    }

    private func pow(_ base: Double, _ exponent: Double) -> Double {
        var result = 1.0
        var remaining = Int(exponent)
        while remaining > 0 {
            result *= base
            remaining -= 1
        }
        return result
    }
}
