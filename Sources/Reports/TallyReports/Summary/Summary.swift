package import TallyCore

/// A summary: its rows, sorted and limited as asked, their total, and what was read to make it.
package struct Summary: Sendable {
    /// The rows shown: sorted by ``SummaryQuery/sort``, at most ``SummaryQuery/limit``.
    package var rows: [SummaryRow]
    /// Every matching event in one row (key `total`), however many ``rows`` are shown; nil when
    /// nothing matched. Its users and event types are distinct over all groups, not sums.
    package var total: SummaryRow?
    /// Groups that matched, before `--limit`.
    package var groupCount: Int
    /// Events read that matched the filters, duplicates included.
    package var eventsRead: Int
    /// Stored copies of an event already counted (same `event_id`): skipped.
    package var duplicates: Int
    /// Lines of the store that could not be read (reported, never fatal).
    package var unreadableLines: Int
    /// Last lines cut short by a crash (skipped).
    package var tornLines: Int
    /// identify / group / alias records in the time range (each counted once), by kind; only for
    /// queries without a feature or event filter (identity records have neither).
    package var identities: [EventKind: Int] = [:]

    /// Whether any matching event was sampled on its device: then the rows' estimated totals
    /// differ from their stored counts.
    package var isSampled: Bool { (total?.unsampledEstimate ?? 0) > 0 }

    /// A summary of `rows` (every group, in any order), sorted and limited as `query` asks.
    package init(
        rows: [SummaryRow],
        total: SummaryRow?,
        query: SummaryQuery,
        eventsRead: Int,
        duplicates: Int,
        unreadableLines: Int,
        tornLines: Int
    ) {
        let sorted: [SummaryRow]
        switch query.sort {
        case .name: sorted = rows.sorted { $0.key < $1.key }
        case .count: sorted = rows.sorted { $0.events == $1.events ? $0.key < $1.key : $0.events > $1.events }
        }
        self.rows = query.limit.map { Array(sorted.prefix($0)) } ?? sorted
        self.total = total
        groupCount = rows.count
        self.eventsRead = eventsRead
        self.duplicates = duplicates
        self.unreadableLines = unreadableLines
        self.tornLines = tornLines
    }
}
