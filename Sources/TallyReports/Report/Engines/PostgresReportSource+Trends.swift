import TallyCore
import TallyPostgres

extension PostgresReportSource {
    /// Event counts from `tally.rollup_hourly` (kept exact with the events by the loader), for
    /// trends whose buckets are whole UTC hours (``TrendsEvaluation/hourlyCountNames``). Returns
    /// false, having fed nothing, when a row holds sampled events: their estimate is summed in
    /// another order than the events' own, so the events are read instead.
    func feedHourlyCounts(
        _ needs: EventNeeds,
        names wanted: Set<String>,
        into evaluation: inout TrendsEvaluation
    ) async throws -> Bool {
        let rows = try await connection.query(
            """
            SELECT name, extract(epoch FROM hour)::bigint, sum(events)::bigint, bool_or(unsampled_estimate <> 0)
            FROM tally.rollup_hourly
            WHERE hour >= $1::timestamptz AND hour < $2::timestamptz AND name = ANY($3::text[])
            GROUP BY 1, 2
            """,
            [needs.from.rfc3339, needs.to.rfc3339, Self.arrayLiteral(wanted.sorted())]
        )
        guard !rows.contains(where: { $0[3] == "t" }) else { return false }
        var seen = Set<String>()
        for row in rows {
            guard let name = row[0], let hour = row[1].flatMap({ Int64($0) }), let events = row[2].flatMap({ Int($0) })
            else { continue }
            let start = Timestamp(secondsSinceEpoch: hour)
            if !(start < needs.from), events > 0 { seen.insert(name) }
            evaluation.consumeHourly(name: name, hour: start, events: events)
        }
        names.withLock { $0.formUnion(seen) }
        return true
    }
}
