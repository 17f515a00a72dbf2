public import TallyCore

/// One row of a summary: a group and its metrics.
public struct SummaryRow: Sendable, Hashable {
    /// The group: a feature, an event name, a day (`2026-11-22`) or an hour (`2026-11-22T10:00:00Z`).
    public var key: String
    /// Events, each counted once however often it was stored.
    public var events: Int
    /// Distinct users: `user_id`, else `anonymous_id`; events with neither are not counted here.
    public var uniqueUsers: Int
    /// Distinct event names.
    public var eventTypes: Int
    /// The earliest `occurred_at`.
    public var firstSeen: Timestamp
    /// The latest `occurred_at`.
    public var lastSeen: Timestamp
}
