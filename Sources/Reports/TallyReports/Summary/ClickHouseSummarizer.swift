package import TallyClickHouse
import TallyCore

/// Summaries from ClickHouse, with the same rows as ``FileStoreSummarizer`` and
/// ``PostgresSummarizer``.
///
/// Every metric is one that copies of an event cannot change: events are `uniqExact(event_id)`,
/// users `uniqExact` of the actor, event types `uniqExact(name)`, first and last seen `min` and
/// `max`. So the answer is exact whether or not `ReplacingMergeTree` merged re-sent copies away,
/// and the `Distributed` table merges the shards' partial states as usual. The sampling estimate
/// is a sum, so it is counted per distinct (group, rate) over distinct ids.
package struct ClickHouseSummarizer: Sendable {
    private let client: ClickHouseClient

    package init(client: ClickHouseClient) {
        self.client = client
    }

    package func summarize(_ query: SummaryQuery) async throws -> Summary {
        let filter = Self.filter(query)
        let key: String
        switch query.grouping {
        case .feature: key = "feature"
        case .event: key = "name"
        case .day: key = "toString(day)"
        case .hour: key = "toString(toStartOfHour(toDateTime(intDiv(occurred_at, 1000000), 'UTC')))"
        }
        let metrics = """
            uniqExact(event_id), uniqExact(name), min(occurred_at), max(occurred_at),
            uniqExactIf(actor, isNotNull(user_id) OR isNotNull(anonymous_id))
            """
        var rows: [SummaryRow] = []
        for row in try await client.rows("SELECT \(key), \(metrics) FROM tally.events WHERE \(filter) GROUP BY \(key)")
        {
            if let parsed = Self.row(row, grouping: query.grouping) { rows.append(parsed) }
        }
        var total: SummaryRow?
        if !rows.isEmpty {
            total = try await client.rows("SELECT 'total', \(metrics) FROM tally.events WHERE \(filter)").first
                .flatMap { Self.row($0, grouping: .feature) }
        }
        // The estimate of unsampled events: (1 / rate - 1) for each distinct event of each rate.
        let sampled = try await client.rows(
            """
            SELECT \(key), assumeNotNull(sample_rate) AS rate, uniqExact(event_id) FROM tally.events
            WHERE (\(filter)) AND isNotNull(sample_rate) GROUP BY \(key), rate
            """
        )
        for row in sampled {
            guard row.count == 3, let rate = Double(row[1]), let count = Double(row[2]), rate > 0 else { continue }
            let estimate = (1 / rate - 1) * count
            let groupKey = Self.key(row[0], grouping: query.grouping)
            if let index = rows.firstIndex(where: { $0.key == groupKey }) { rows[index].unsampledEstimate += estimate }
            total?.unsampledEstimate += estimate
        }
        var summary = Summary(
            rows: rows,
            total: total,
            query: query,
            eventsRead: total?.events ?? 0,
            duplicates: 0,
            unreadableLines: 0,
            tornLines: 0
        )
        if query.feature == nil, query.event == nil {
            var range = "1"
            if let since = query.since { range += " AND occurred_at >= \(RowBinaryWriter.micros(since))" }
            if let until = query.until { range += " AND occurred_at < \(RowBinaryWriter.micros(until))" }
            let counts = try await client.rows(
                "SELECT type, uniqExact(event_id) FROM tally.identities WHERE \(range) GROUP BY type"
            )
            for row in counts {
                if row.count == 2, let type = EventKind(rawValue: row[0]), let count = Int(row[1]) {
                    summary.identities[type] = count
                }
            }
        }
        return summary
    }

    /// The query's filters as a `WHERE` condition.
    static func filter(_ query: SummaryQuery) -> String {
        var parts = ["1"]
        if let since = query.since { parts.append("occurred_at >= \(RowBinaryWriter.micros(since))") }
        if let until = query.until { parts.append("occurred_at < \(RowBinaryWriter.micros(until))") }
        if let feature = query.feature { parts.append("feature = " + ClickHouseSQL.string(feature)) }
        if let event = query.event { parts.append("name = " + ClickHouseSQL.string(event)) }
        return parts.joined(separator: " AND ")
    }

    /// An hour as the other stores spell it (`2026-11-22T10:00:00Z`); other keys as they are.
    static func key(_ text: String, grouping: SummaryQuery.Grouping) -> String {
        guard grouping == .hour else { return text }
        return text.replacingOccurrences(of: " ", with: "T") + "Z"
    }

    /// Columns: key, events, event types, first, last (microseconds), users.
    static func row(_ row: [String], grouping: SummaryQuery.Grouping) -> SummaryRow? {
        guard row.count == 6, let events = Int(row[1]), events > 0, let types = Int(row[2]),
            let first = Int64(row[3]), let last = Int64(row[4]), let users = Int(row[5])
        else { return nil }
        return SummaryRow(
            key: key(row[0], grouping: grouping),
            events: events,
            uniqueUsers: users,
            eventTypes: types,
            firstSeen: Timestamp(nanosecondsSinceEpoch: first * 1_000),
            lastSeen: Timestamp(nanosecondsSinceEpoch: last * 1_000)
        )
    }
}
