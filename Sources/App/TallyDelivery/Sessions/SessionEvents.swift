/// tally's own session events (feature `tally`, known to every registry).
enum SessionEvents {
    static let feature = "tally"
    /// A session began: its first event carries the same `session_id`.
    static let started = "session_started"
    /// A session ended (idle timeout, maximum length, or a reset): `duration_ms`, at its last activity.
    static let ended = "session_ended"
}
