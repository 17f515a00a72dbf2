/// Whether retrying a failed sink write can help: what decides between a retry with backoff and
/// the dead-letter sink at once.
///
/// A struct over a private enum, so that a class added later breaks no `switch` of yours.
public struct SinkErrorClass: Sendable, Hashable, CustomStringConvertible {
    private enum Base: String { case transient, permanent }
    private let base: Base
    private init(_ base: Base) { self.base = base }

    /// The same write may succeed later (connection lost, server restarting, deadlock, timeout):
    /// it is retried with backoff, up to ``RetryPolicy/maxAttempts``.
    public static let transient = SinkErrorClass(.transient)
    /// The same write will fail again (permission denied, missing table, bad credentials, data the
    /// store refuses): the batch goes to the dead-letter sink after this one attempt.
    public static let permanent = SinkErrorClass(.permanent)

    /// The class of any error a sink threw: its own for a ``ClassifiedError``, ``transient`` for
    /// anything else (a retry is the safe guess: it costs time, never events).
    public static func of(_ error: any Error) -> SinkErrorClass {
        (error as? any ClassifiedError)?.errorClass ?? .transient
    }

    public var description: String { base.rawValue }
}
