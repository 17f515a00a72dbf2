package import TallyCore
package import TallyPostgres

/// Reports over PostgreSQL: the events an evaluation needs, read through a cursor in batches with
/// bound parameters (the range, the names), each row built as the envelope the file store holds.
package struct PostgresReportSource: ReportEventSource {
    package let connection: PostgresConnection
    /// Rows per FETCH.
    package var batchSize = 10_000
    /// The names of the events handed over, to tell a report over names the store never holds.
    package let names = Locked(Set<String>())

    package init(connection: PostgresConnection) {
        self.connection = connection
    }

    package func identities() async throws -> IdentityResolver {
        var resolver = IdentityResolver()
        let exists = try await connection.query("SELECT to_regclass('tally.identities') IS NOT NULL")
        guard exists.first?.first == "t" else { return resolver }
        // The link's two ids, its time in microseconds since 1970 and the record's id, as text.
        let rows = try await connection.query(
            """
            SELECT CASE type WHEN 'identify' THEN anonymous_id ELSE previous_id END, user_id,
                (extract(epoch FROM occurred_at) * 1000000)::bigint, event_id
            FROM tally.identities
            WHERE type IN ('identify', 'alias') AND user_id IS NOT NULL
              AND CASE type WHEN 'identify' THEN anonymous_id ELSE previous_id END IS NOT NULL
            """
        )
        for row in rows {
            guard let from = row[0], let target = row[1], let micros = row[2].flatMap({ Int64($0) }),
                let id = row[3].flatMap({ EventID($0) })
            else { continue }
            resolver.addLink(
                from: from,
                to: target,
                time: Timestamp(nanosecondsSinceEpoch: micros * 1_000),
                recordID: id
            )
        }
        return resolver
    }

    package func feed(_ needs: EventNeeds, into evaluation: inout any ReportEvaluation) async throws {
        if var funnel = evaluation as? FunnelEvaluation, let masks = funnel.masksByName {
            try await feedFunnel(needs, masks: masks, into: &funnel)
            evaluation = funnel
            return
        }
        if var trends = evaluation as? TrendsEvaluation, let read = trends.actorRecords {
            try await feedTrendActors(needs, names: read.names, into: &trends)
            evaluation = trends
            return
        }
        if let trends = evaluation as? TrendsEvaluation, let read = trends.hourlyCounts,
            try await feedHourlyCounts(needs, read, into: &evaluation)
        {
            return
        }
        if var retention = evaluation as? RetentionEvaluation, retention.namesDecide {
            var done = false
            if retention.alignsWithUTCDays { done = try await feedRetentionDays(needs, into: &retention) }
            if !done { try await feedRetention(needs, into: &retention) }
            evaluation = retention
            return
        }
        try await feedEnvelopes(needs, into: &evaluation)
    }

    /// Every event `needs` asks for, as the envelope the file store holds.
    func feedEnvelopes(_ needs: EventNeeds, into evaluation: inout any ReportEvaluation) async throws {
        try await connection.execute("BEGIN; SET LOCAL TimeZone = 'UTC'")
        do {
            try await connection.query(
                """
                DECLARE tally_report NO SCROLL CURSOR FOR
                SELECT jsonb_build_object('event_id', event_id, 'name', name, 'feature', feature,
                    'properties', properties, 'occurred_at', occurred_at, 'user_id', user_id,
                    'anonymous_id', anonymous_id, 'session_id', session_id, 'context', context,
                    'schema_version', schema_version, 'sample_rate', sample_rate)::text
                FROM tally.events
                WHERE (occurred_at >= $1::timestamptz AND occurred_at < $2::timestamptz
                       AND ($3::text[] IS NULL OR name = ANY($3::text[])))
                   OR (occurred_at < $1::timestamptz AND name = ANY($4::text[]))
                """,
                [
                    needs.from.rfc3339, needs.to.rfc3339, needs.names.map { Self.arrayLiteral($0.sorted()) },
                    Self.arrayLiteral(needs.lookbackNames.sorted()),
                ]
            )
            var seen = Set<String>()
            defer { names.withLock { $0.formUnion(seen) } }
            while true {
                let rows = try await connection.query("FETCH FORWARD \(batchSize) FROM tally_report")
                for row in rows {
                    guard let text = row.first ?? nil else { continue }
                    let event = try EventEnvelope(ndjsonLine: Array(text.utf8))
                    if !(event.occurredAt < needs.from) { seen.insert(event.name) }
                    evaluation.consume(event)
                }
                if rows.count < batchSize { break }
            }
            try await connection.execute("CLOSE tally_report; COMMIT")
        } catch {
            await connection.rollback()
            throw error
        }
    }

    /// A `text[]` literal: every element double-quoted, with its quotes and backslashes escaped.
    static func arrayLiteral(_ values: [String]) -> String {
        "{"
            + values.map {
                "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                    + "\""
            }
            .joined(separator: ",") + "}"
    }
}
