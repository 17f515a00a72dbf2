import TallyCore
import TallyPostgres

extension PostgresReportSource {
    /// Event counts from `tally.rollup_hourly` (kept exact with the events by the loader), for
    /// count trends (``TrendsEvaluation/hourlyCounts``): every hour of the range but the few
    /// holding a boundary, whose events are read themselves (by name and time, which
    /// `tally.events_name_time` finds: the names of an hour are its rollup rows'). Returns false,
    /// having fed nothing, when a rollup row holds sampled events: their estimate is summed in
    /// another order than the events' own, so the events are read instead.
    func feedHourlyCounts(
        _ needs: EventNeeds,
        _ read: TrendsEvaluation.HourlyCountRead,
        into evaluation: inout any ReportEvaluation
    ) async throws -> Bool {
        let wanted = read.names.map { Self.arrayLiteral($0.sorted()) }
        let eventHours = "{" + read.eventHours.map(\.rfc3339).joined(separator: ",") + "}"
        // Without a name condition when every name counts: `$n IS NULL OR …` plans as a filter.
        let rows = try await connection.query(
            """
            SELECT name, feature, extract(epoch FROM hour)::bigint, sum(events)::bigint,
                bool_or(unsampled_estimate <> 0), hour = ANY($3::timestamptz[])
            FROM tally.rollup_hourly
            WHERE hour >= $1::timestamptz - interval '1 hour' AND hour < $2::timestamptz\(
                wanted == nil ? "" : " AND name = ANY($4::text[])")
            GROUP BY 1, 2, 3, hour
            """,
            [needs.from.rfc3339, needs.to.rfc3339, eventHours] + (wanted.map { [$0] } ?? []) as [String?]
        )
        let fromSeconds = needs.from.nanosecondsSinceEpoch / 1_000_000_000
        let counted = rows.filter { row in row[5] == "f" && (row[2].flatMap { Int64($0) } ?? .min) >= fromSeconds }
        guard !counted.contains(where: { $0[4] == "t" }) else { return false }
        // The hours read from the events, each with the names its rollup rows hold.
        for hour in read.eventHours {
            let seconds = hour.nanosecondsSinceEpoch / 1_000_000_000
            let names = Set(rows.filter { $0[2].flatMap { Int64($0) } == seconds }.compactMap { $0[0] })
            guard !names.isEmpty else { continue }
            try await feedEnvelopes(
                EventNeeds(from: hour, to: hour.advanced(byNanoseconds: 3_600_000_000_000), names: names),
                into: &evaluation
            )
        }
        guard var trends = evaluation as? TrendsEvaluation else { return true }
        var seen = Set<String>()
        for row in counted {
            guard let name = row[0], let feature = row[1], let hour = row[2].flatMap({ Int64($0) }),
                let events = row[3].flatMap({ Int($0) }), events > 0
            else { continue }
            let start = Timestamp(secondsSinceEpoch: hour)
            seen.insert(name)
            trends.consumeHourly(name: name, feature: feature, hour: start, events: events)
        }
        names.withLock { $0.formUnion(seen) }
        evaluation = trends
        return true
    }
}

extension PostgresReportSource {
    /// Distinct-actor trends without filters or breakdown (``TrendsEvaluation/actorRecords``): per
    /// event of the names (nil: every event), its actor, time, name and sample rate over COPY in
    /// binary, not the whole event.
    func feedTrendActors(_ needs: EventNeeds, names wanted: Set<String>?, into evaluation: inout TrendsEvaluation)
        async throws
    {
        let names = wanted.map { $0.sorted() } ?? []
        let sql = """
            COPY (SELECT coalesce(user_id, anonymous_id), occurred_at,
                array_position((SELECT current_setting('tally.report_names')::text[]), name)::int2, sample_rate
            FROM tally.events
            WHERE occurred_at >= (SELECT current_setting('tally.report_from')::timestamptz)
              AND occurred_at < (SELECT current_setting('tally.report_to')::timestamptz)\(
                wanted == nil ? "" : "\n  AND name = ANY((SELECT current_setting('tally.report_names')::text[])::text[])")
            ) TO STDOUT (FORMAT binary)
            """
        try await connection.execute("BEGIN")
        do {
            try await bindSettings(
                [
                    "tally.report_from": needs.from.rfc3339, "tally.report_to": needs.to.rfc3339,
                    "tally.report_names": Self.arrayLiteral(names),
                ]
            )
            var stored = StoredActorIndex()
            var seen = [Bool](repeating: false, count: names.count)
            try await connection.copyOut(sql) { chunk in
                var cursor = CopyBinaryCursor(chunk)
                while !cursor.atEnd {
                    _ = cursor.row()
                    let actor = cursor.field()
                    guard let micros = cursor.integer() else { continue }
                    let position = Int(cursor.integer() ?? 0)
                    let rate = cursor.field().flatMap(Self.float8)
                    var name: String?
                    if wanted != nil {
                        guard position > 0 else { continue }
                        name = names[position - 1]
                        seen[position - 1] = true
                    }
                    let index = actor.map { stored.index($0) { evaluation.actorIndex(stored: $0) } }
                    evaluation.consumeRecord(
                        name: name,
                        time: Timestamp(nanosecondsSinceEpoch: Self.nanoseconds(postgresMicroseconds: micros)),
                        actor: index,
                        sampleRate: rate
                    )
                }
            }
            try await connection.execute("COMMIT")
            self.names.withLock { known in
                for (index, name) in names.enumerated() where seen[index] { known.insert(name) }
            }
        } catch {
            await connection.rollback()
            throw error
        }
    }

    /// A binary `float8` field.
    static func float8(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard bytes.count == 8 else { return nil }
        var bits: UInt64 = 0
        for byte in bytes { bits = bits << 8 | UInt64(byte) }
        return Double(bitPattern: bits)
    }
}
