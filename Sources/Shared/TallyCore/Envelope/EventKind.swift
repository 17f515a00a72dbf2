/// What a record in the pipeline is: an event, or one of the identity calls of Segment's spec
/// (PostHog's `$identify`, `$groupidentify` and `$create_alias` map to them).
///
/// Identity records travel with events (the same ids, retries and dead letters) but are stored
/// apart from them: `tally.identities` in PostgreSQL, `identities/` in the file store. They are
/// never counted as events.
public enum EventKind: String, Sendable, Hashable, CaseIterable {
    /// An event (Segment's `track`, `page` and `screen`).
    case track
    /// Who the user is, with traits.
    case identify
    /// The user belongs to a group (a company, an account), with the group's traits.
    case group
    /// Two ids are the same user.
    case alias

    /// Whether this is an identity record rather than an event.
    public var isIdentity: Bool { self != .track }
}
