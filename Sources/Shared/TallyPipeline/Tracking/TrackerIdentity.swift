/// Who the tracked events are about: stamped on every event a ``PipelineTracker`` creates.
public struct TrackerIdentity: Sendable, Hashable {
    /// The signed-in user, if any.
    public var userID: String?
    /// A stable per-install id for users who are not signed in.
    public var anonymousID: String?
    /// The app session.
    public var sessionID: String?

    /// Creates an identity; every field is optional.
    public init(userID: String? = nil, anonymousID: String? = nil, sessionID: String? = nil) {
        self.userID = userID
        self.anonymousID = anonymousID
        self.sessionID = sessionID
    }
}
