package import TallyCore

/// One row of a summary: a group and its metrics.
package struct SummaryRow: Sendable, Hashable {
    /// The group: a feature, an event name, a day (`2026-11-22`) or an hour (`2026-11-22T10:00:00Z`).
    package var key: String
    /// Events, each counted once however often it was stored.
    package var events: Int
    /// Distinct users: `user_id`, else `anonymous_id`; events with neither are not counted here.
    package var uniqueUsers: Int
    /// Distinct event names.
    package var eventTypes: Int
    /// The earliest `occurred_at`.
    package var firstSeen: Timestamp
    /// The latest `occurred_at`.
    package var lastSeen: Timestamp
    /// The events that device sampling left out, estimated: each stored event with a
    /// `sample_rate` stands for `1 / sample_rate` events, itself and `1 / sample_rate - 1` others.
    package var unsampledEstimate: Double = 0

    /// The estimated total: ``events`` (stored) plus ``unsampledEstimate``, to the nearest event.
    package var estimatedEvents: Int { events + Int(unsampledEstimate.rounded()) }
}
