package import TallyPipeline

/// The uploader's decisions, without I/O: what a collector's answer means for the batches of the
/// request (delete, keep and wait, split, dead-letter), how long to wait, and how many events the
/// next request may carry. Tested on its own, every status class.
///
/// - 2xx: the batches are acknowledged: delete them. The backoff resets. An event limit a 413
///   lowered stays lowered (the collector's limit does not change while the app runs; growing
///   back would make every other request a 413).
/// - 408, 429, 5xx, a network error (no answer, a reset, a timeout): keep the batches and wait
///   `min(initial × 2ⁿ⁻¹, max)` less up to ``RetryPolicy/jitter`` of it, after the n-th failure in a
///   row, or the `Retry-After` the collector asked for if that is longer (capped).
/// - 413: the request was too large: halve the events of the next request and send again at
///   once. A single event refused as too large can never pass: dead-letter it.
/// - Any other status (4xx; 1xx and 3xx that URLSession did not handle): sending the same request
///   again cannot help: dead-letter its batches.
package struct UploadStateMachine: Sendable {
    /// A collector's answer, or its absence.
    package enum Response: Sendable, Hashable {
        case status(Int, retryAfter: Duration?)
        /// No HTTP answer: connection refused or reset, a timeout, DNS.
        case transportFailure
    }

    /// What to do with the request's batches.
    package enum Action: Sendable, Hashable {
        case delete
        case retry(after: Duration)
        case split
        case deadLetter
    }

    /// The most events in one request.
    package let maxEvents: Int
    package let backoff: RetryPolicy
    /// The longest `Retry-After` honoured (a broken header must not park the uploader for a day).
    package let maxRetryAfter: Duration
    /// The most events the next request may carry (lowered by 413s, for the uploader's lifetime).
    package private(set) var eventLimit: Int
    /// Failures in a row since the last 2xx.
    package private(set) var failures = 0

    package init(maxEvents: Int, backoff: RetryPolicy, maxRetryAfter: Duration) {
        self.maxEvents = max(1, maxEvents)
        self.backoff = backoff
        self.maxRetryAfter = maxRetryAfter
        eventLimit = self.maxEvents
    }

    /// The decision for `response` to a request of `events` events.
    package mutating func received(
        _ response: Response,
        events: Int,
        using generator: inout some RandomNumberGenerator
    ) -> Action {
        switch response {
        case .transportFailure:
            return retry(retryAfter: nil, using: &generator)
        case .status(let status, let retryAfter):
            switch status {
            case 200..<300:
                failures = 0
                return .delete
            case 413:
                guard events > 1 else { return .deadLetter }
                eventLimit = max(1, events / 2)
                return .split
            case 408, 429, 500..<600:
                return retry(retryAfter: retryAfter, using: &generator)
            default:
                return .deadLetter
            }
        }
    }

    /// A request built locally came out over the byte limit: fewer events next time.
    package mutating func tooLarge(events: Int) -> Bool {
        guard events > 1 else { return false }
        eventLimit = max(1, events / 2)
        return true
    }

    private mutating func retry(retryAfter: Duration?, using generator: inout some RandomNumberGenerator) -> Action {
        failures += 1
        var wait = backoff.jitteredBackoff(afterAttempt: failures, using: &generator)
        if let retryAfter {
            let asked = min(max(retryAfter, .zero), maxRetryAfter)
            if asked > wait { wait = asked }
        }
        return .retry(after: wait)
    }
}
