/// What the group commit tells a request.
package enum CommitOutcome: Sendable, Hashable {
    /// Every event and reject of the request is durable: answer 2xx.
    case committed
    /// Too much is waiting already: 429 with `Retry-After`, nothing acknowledged.
    case queueFull
    /// The sink failed after its retries: 503 with `Retry-After`.
    case unavailable
    /// The request's deadline passed first: 503 with `Retry-After` (a late commit is harmless:
    /// the client re-sends and ids deduplicate).
    case timedOut
    /// The collector is shutting down: 503 with `Retry-After`.
    case shuttingDown
}
