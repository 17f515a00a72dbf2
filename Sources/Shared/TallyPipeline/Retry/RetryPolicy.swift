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
        // Compared in seconds first: past ~60 doublings the product no longer fits a Duration and
        // forming it traps. An app's uploader retries without end (maxAttempts .max), so half an
        // hour offline at a 30 s cap got there.
        let factor = pow(multiplier, max(attempt - 1, 0))
        let seconds = Self.seconds(initialBackoff) * factor
        guard seconds.isFinite, seconds < Self.seconds(maxBackoff) else { return maxBackoff }
        return initialBackoff * factor
    }

    /// Why this policy cannot be used (the setting and what it needs), or nil. The initializer's
    /// preconditions guard values given to it; this also covers properties set afterwards, for
    /// configurations that check before they build (`TallyDelivery`).
    package var problem: String? {
        if maxAttempts < 1 { return "maxAttempts \(maxAttempts): must be at least 1." }
        if !(0...1).contains(jitter) { return "jitter \(jitter): must be within 0...1." }
        if !(multiplier >= 1 && multiplier.isFinite) { return "multiplier \(multiplier): must be 1 or more." }
        if initialBackoff < .zero { return "initialBackoff \(initialBackoff): must not be negative." }
        if maxBackoff < .zero { return "maxBackoff \(maxBackoff): must not be negative." }
        return nil
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

    /// `base` to the power `exponent`, stopping once it is past any wait (an attempt count may be
    /// in the millions after days of failures).
    private func pow(_ base: Double, _ exponent: Int) -> Double {
        var result = 1.0
        var remaining = exponent
        while remaining > 0, result < 1e30 {
            result *= base
            remaining -= 1
        }
        return result
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}
