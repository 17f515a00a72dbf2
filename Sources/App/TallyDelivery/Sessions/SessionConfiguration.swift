/// How events are grouped into sessions: each event carries its session's `session_id`; a session
/// ends after ``idleTimeout`` without events or after ``maxLength``, and survives a relaunch
/// within the idle timeout (it is kept in the outbox's `identity.json`).
public struct SessionConfiguration: Sendable, Hashable {
    /// How long without events ends a session: 30 minutes by default.
    public var idleTimeout: Duration
    /// The longest a session lasts, however busy: 24 hours by default.
    public var maxLength: Duration
    /// Whether a session's start and end are tracked as tally events `session_started` and
    /// `session_ended` (with `duration_ms`): off by default.
    public var events: Bool

    /// Sessions with the defaults above.
    public init(
        idleTimeout: Duration = .seconds(30 * 60),
        maxLength: Duration = .seconds(24 * 3600),
        events: Bool = false
    ) {
        self.idleTimeout = idleTimeout
        self.maxLength = maxLength
        self.events = events
    }
}
