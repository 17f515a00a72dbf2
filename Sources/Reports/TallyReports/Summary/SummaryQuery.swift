package import TallyCore

/// What `tally summary` asks: a grouping, filters and the metrics of each group.
package struct SummaryQuery: Sendable, Hashable {
    /// How rows are grouped.
    package enum Grouping: String, Sendable, CaseIterable {
        case feature, event, day, hour

        /// What one group is called in a sentence: "3 features", "9 event types".
        package var noun: String {
            switch self {
            case .feature: "feature"
            case .event: "event type"
            case .day: "day"
            case .hour: "hour"
            }
        }
    }

    /// The order of rows.
    package enum Sort: String, Sendable, CaseIterable {
        /// By group key: features and event names alphabetically, days and hours in time order.
        case name
        /// Most events first; equal counts by key.
        case count
    }

    /// The grouping.
    package var grouping: Grouping
    /// Only this feature.
    package var feature: String?
    /// Only this event name.
    package var event: String?
    /// Only events that occurred at or after this time.
    package var since: Timestamp?
    /// Only events that occurred before this time.
    package var until: Timestamp?
    /// The order of rows.
    package var sort: Sort
    /// Show at most this many rows (the total row still counts every group); nil: all.
    package var limit: Int?

    /// A query.
    package init(
        grouping: Grouping,
        feature: String? = nil,
        event: String? = nil,
        since: Timestamp? = nil,
        until: Timestamp? = nil,
        sort: Sort = .name,
        limit: Int? = nil
    ) {
        self.grouping = grouping
        self.feature = feature
        self.event = event
        self.since = since
        self.until = until
        self.sort = sort
        self.limit = limit
    }

    /// Whether `event` passes the filters.
    package func matches(_ event: EventEnvelope) -> Bool {
        if let feature, event.feature != feature { return false }
        if let name = self.event, event.name != name { return false }
        if let since, event.occurredAt < since { return false }
        if let until, !(event.occurredAt < until) { return false }
        return true
    }

    /// The group key of `event`.
    package func key(of event: EventEnvelope) -> String {
        switch grouping {
        case .feature: return event.feature ?? SummaryQuery.unknownFeature
        case .event: return event.name
        case .day: return event.occurredAt.utcDate.isoString
        case .hour:
            let text = event.occurredAt.rfc3339
            return String(text.prefix(13)) + ":00:00Z"
        }
    }

    /// The group of events whose feature is not known.
    package static let unknownFeature = "(none)"

    /// Parses `--since`/`--until`: RFC 3339, a date (`2026-11-22`, midnight UTC), or a duration
    /// before `now` (`90m`, `36h`, `7d`, `2w`).
    package static func parseTime(_ text: String, now: Timestamp = .now()) -> Timestamp? {
        if let timestamp = Timestamp(rfc3339: text) { return timestamp }
        if let date = Timestamp(rfc3339: text + "T00:00:00Z") { return date }
        guard let unit = text.last, let amount = Int64(text.dropLast()), amount >= 0 else { return nil }
        let seconds: Int64
        switch unit {
        case "s": seconds = 1
        case "m": seconds = 60
        case "h": seconds = 3_600
        case "d": seconds = 86_400
        case "w": seconds = 604_800
        default: return nil
        }
        // A duration past what an Int64 of nanoseconds holds (about 292 years) is no time at all.
        let (inSeconds, overflow) = amount.multipliedReportingOverflow(by: seconds)
        let (nanoseconds, overflowNanos) = inSeconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (_, overflowNow) = now.nanosecondsSinceEpoch.subtractingReportingOverflow(nanoseconds)
        guard !overflow, !overflowNanos, !overflowNow else { return nil }
        return now.advanced(byNanoseconds: -nanoseconds)
    }
}
