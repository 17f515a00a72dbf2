/// The session rules, without I/O or clocks: a session lasts while events come within the idle
/// timeout of each other, and at most the maximum length; then the next event starts a new one.
///
/// Device time can go backwards (the user changes the clock): an event older than the last
/// activity keeps the session and does not move its last activity back.
package struct SessionMachine: Sendable, Hashable {
    /// What an event did to the session.
    package enum Step: Sendable, Hashable {
        /// It belongs to the current session.
        case continued
        /// It started a new session; `ended` is the one it replaced (nil at first or after an end).
        case started(ended: Session?)
    }

    /// The session now, if any event started one.
    package private(set) var current: Session?
    package let idleTimeout: Int64
    package let maxLength: Int64

    /// - Parameters: `idleTimeout` and `maxLength` in nanoseconds; `current` as persisted.
    package init(current: Session?, idleTimeout: Int64, maxLength: Int64) {
        self.current = current
        self.idleTimeout = idleTimeout
        self.maxLength = maxLength
    }

    /// Whether `session` would still be going at `now`.
    package func isLive(_ session: Session, at now: Int64) -> Bool {
        now - session.lastActivityAt <= idleTimeout && now - session.startedAt < maxLength
    }

    /// The current session if it is still going at `now`.
    package func liveSession(at now: Int64) -> Session? {
        current.flatMap { isLive($0, at: now) ? $0 : nil }
    }

    /// An event at `now`: continues the session, or starts one with `newID()`.
    package mutating func touch(at now: Int64, newID: () -> String) -> Step {
        if var session = current, isLive(session, at: now) {
            session.lastActivityAt = max(session.lastActivityAt, now)
            current = session
            return .continued
        }
        let ended = current
        current = Session(id: newID(), startedAt: now, lastActivityAt: now)
        return .started(ended: ended)
    }

    /// Ends the current session (logout): the next event starts a new one. Returns the one ended.
    @discardableResult
    package mutating func end() -> Session? {
        defer { current = nil }
        return current
    }
}
