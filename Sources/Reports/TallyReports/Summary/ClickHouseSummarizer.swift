package import TallyClickHouse
import TallyCore

/// Summaries from ClickHouse, with the same rows as ``FileStoreSummarizer`` and
/// ``PostgresSummarizer``.
///
/// By default, as on PostgreSQL, events, event types, first and last seen and the sampling
/// estimate come from `tally.events_hourly`, and users from `tally.actors_daily`: rollups of exact
/// sets (`uniqExactState`) that materialized views keep, so a re-sent copy adds nothing to them.
/// Groupings or filters they cannot answer exactly (`--by event|hour`, `--event`,
/// `--since`/`--until` not at a UTC midnight), and `exact: true`, read `tally.events` instead.
///
/// There every metric is one that copies of an event cannot change: events are
/// `uniqExact(event_id)`, users `uniqExact` of the actor, event types `uniqExact(name)`, first and
/// last seen `min` and `max`. So the answer is exact whether or not `ReplacingMergeTree` merged
/// re-sent copies away, and the `Distributed` table merges the shards' partial states as usual.
/// The sampling estimate is a sum, so it is counted per distinct (group, rate) over distinct ids.
package struct ClickHouseSummarizer: Sendable {
    private let client: ClickHouseClient

    package init(client: ClickHouseClient) {
        self.client = client
    }

    /// Runs `query`; `exact: true` reads the raw events even where the rollups answer.
    package func summarize(_ query: SummaryQuery, exact: Bool = false) async throws -> Summary {
        // Users are per-day sets: the rollups answer exactly only for whole days.
        let dayAligned = [query.since, query.until].allSatisfy {
            $0.map { $0.nanosecondsSinceEpoch % 86_400_000_000_000 == 0 } ?? true
        }
        let useRollups =
            !exact && dayAligned && query.event == nil && (query.grouping == .feature || query.grouping == .day)
        let (rows, total) = try await useRollups ? fromRollups(query) : fromEvents(query)
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

    /// The groups' rows and the total row from `tally.events`.
    private func fromEvents(_ query: SummaryQuery) async throws -> ([SummaryRow], SummaryRow?) {
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
        return (rows, total)
    }

    /// The groups' rows and the total row from the rollups (whole days only).
    private func fromRollups(_ query: SummaryQuery) async throws -> ([SummaryRow], SummaryRow?) {
        // A `Date` holds 1970-01-01 to 2105-12-31: a bound past either end selects every day or none.
        let lastDay: Int64 = 49_672
        var filter = ["1"]
        if let since = query.since {
            let day = since.nanosecondsSinceEpoch / 86_400_000_000_000
            if day > lastDay {
                filter.append("0")
            } else if day > 0 {
                filter.append("day >= toDate('\(since.rfc3339.prefix(10))')")
            }
        }
        if let until = query.until {
            let day = until.nanosecondsSinceEpoch / 86_400_000_000_000
            if day <= 0 {
                filter.append("0")
            } else if day <= lastDay {
                filter.append("day < toDate('\(until.rfc3339.prefix(10))')")
            }
        }
        if let feature = query.feature { filter.append("feature = " + ClickHouseSQL.string(feature)) }
        let condition = filter.joined(separator: " AND ")
        let key = query.grouping == .feature ? "feature" : "toString(day)"
        // Per (group, rate): copies share their rate, so the sets of two rates are disjoint and a
        // group's events are the sum over its rates; the estimate needs no query of its own.
        let counts = try await client.rows(
            """
            SELECT \(key) AS key, sample_rate, uniqExactMerge(events), minMerge(first_seen), maxMerge(last_seen)
            FROM tally.events_hourly WHERE \(condition) GROUP BY key, sample_rate
            """
        )
        let types = try await distinct("uniqExact(name)", of: "tally.events_hourly", by: key, where: condition)
        let users = try await distinct("uniqExactMerge(actors)", of: "tally.actors_daily", by: key, where: condition)
        var groups: [String: SummaryRow] = [:]
        var total: SummaryRow?
        for row in counts {
            guard row.count == 5, let rate = Double(row[1]), let events = Int(row[2]), events > 0,
                let first = Int64(row[3]), let last = Int64(row[4])
            else { continue }
            let part = SummaryRow(
                key: row[0],
                events: events,
                uniqueUsers: users.groups[row[0]] ?? 0,
                eventTypes: types.groups[row[0]] ?? 0,
                firstSeen: Timestamp(nanosecondsSinceEpoch: first * 1_000),
                lastSeen: Timestamp(nanosecondsSinceEpoch: last * 1_000),
                unsampledEstimate: rate > 0 ? (1 / rate - 1) * Double(events) : 0
            )
            groups[row[0]] = Self.adding(part, to: groups[row[0]])
            var totalPart = part
            totalPart.key = "total"
            totalPart.uniqueUsers = users.total
            totalPart.eventTypes = types.total
            total = Self.adding(totalPart, to: total)
        }
        return (Array(groups.values), total)
    }

    /// A distinct count from a rollup per group, and over all groups (not the sum of theirs).
    private func distinct(
        _ metric: String,
        of table: String,
        by key: String,
        where condition: String
    ) async throws -> (groups: [String: Int], total: Int) {
        var groups: [String: Int] = [:]
        var total = 0
        let rows = try await client.rows(
            """
            SELECT 0, \(key) AS key, \(metric) FROM \(table) WHERE \(condition) GROUP BY key
            UNION ALL SELECT 1, '', \(metric) FROM \(table) WHERE \(condition)
            """
        )
        for row in rows where row.count == 3 {
            if row[0] == "1" { total = Int(row[2]) ?? 0 } else { groups[row[1]] = Int(row[2]) }
        }
        return (groups, total)
    }

    /// `part` (one rate's events of a group) added to what the group has so far.
    private static func adding(_ part: SummaryRow, to row: SummaryRow?) -> SummaryRow {
        guard var row else { return part }
        row.events += part.events
        row.unsampledEstimate += part.unsampledEstimate
        row.firstSeen = min(row.firstSeen, part.firstSeen)
        row.lastSeen = max(row.lastSeen, part.lastSeen)
        return row
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
