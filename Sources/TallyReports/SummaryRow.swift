public import TallyCore

/// One row of a summary: a group and its metrics.
public struct SummaryRow: Sendable, Hashable {
    /// The group: a feature, an event name, a day (`2026-11-22`) or an hour (`2026-11-22T10:00Z`).
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

/// A summary: its rows, in key order, and what was read to make it.
public struct Summary: Sendable {
    /// The rows.
    public var rows: [SummaryRow]
    /// Events read that matched the filters, duplicates included.
    public var eventsRead: Int
    /// Stored copies of an event already counted (same `event_id`): skipped.
    public var duplicates: Int
    /// Lines of the store that could not be read (reported, never fatal).
    public var unreadableLines: Int
    /// Last lines cut short by a crash (skipped).
    public var tornLines: Int
    /// identify / group / alias records in the time range (each counted once), by kind; only for
    /// queries without a feature or event filter (identity records have neither).
    public var identities: [EventKind: Int] = [:]
}
