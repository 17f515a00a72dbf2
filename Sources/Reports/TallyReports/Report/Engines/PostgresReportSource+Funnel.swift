import TallyCore
import TallyPostgres

extension PostgresReportSource {
    /// Funnels whose steps event names alone decide: PostgreSQL sends, per event, its actor, time,
    /// the index of its name among the funnel's names (its step and exclusion masks follow from
    /// that) and whether it was sampled, in COPY's binary format, and the evaluation gets records,
    /// not envelopes. The range and the names are bound parameters (set_config), read once by the
    /// query.
    func feedFunnel(
        _ needs: EventNeeds,
        masks: [(name: String, steps: UInt16, exclusions: UInt16)],
        into evaluation: inout FunnelEvaluation
    ) async throws {
        let strict = needs.names == nil
        let sql = """
            COPY (SELECT coalesce(user_id, anonymous_id), occurred_at,
                array_position((SELECT current_setting('tally.report_names')::text[]), name)::int2,
                sample_rate IS NOT NULL\(strict ? ", event_id" : "")
            FROM tally.events
            WHERE occurred_at >= (SELECT current_setting('tally.report_from')::timestamptz)
              AND occurred_at < (SELECT current_setting('tally.report_to')::timestamptz)
              AND coalesce(user_id, anonymous_id) IS NOT NULL\(
                strict ? "" : "\n  AND name = ANY((SELECT current_setting('tally.report_names')::text[])::text[])")
            ) TO STDOUT (FORMAT binary)
            """
        try await connection.execute("BEGIN")
        do {
            try await bindSettings(
                [
                    "tally.report_from": needs.from.rfc3339, "tally.report_to": needs.to.rfc3339,
                    "tally.report_names": Self.arrayLiteral(masks.map(\.name)),
                ]
            )
            var stored = StoredActorIndex()
            var seen = [Bool](repeating: false, count: masks.count)
            var batch: [CopiedRow] = []
            batch.reserveCapacity(Self.warmBatch)
            try await connection.copyOut(sql) { chunk in
                var cursor = CopyBinaryCursor(chunk)
                while !cursor.atEnd {
                    // A few hundred rows read first and their actors' slots loaded together, then
                    // looked up: the table's cache misses overlap instead of coming one by one.
                    batch.removeAll(keepingCapacity: true)
                    while batch.count < Self.warmBatch, !cursor.atEnd {
                        _ = cursor.row()
                        guard let actor = cursor.field(), let micros = cursor.integer() else { continue }
                        let position = Int(cursor.integer() ?? 0)
                        let sampled = cursor.field()?.first == 1
                        var id: (high: UInt64, low: UInt64) = (0, 0)
                        if strict, let stored = cursor.uuid() { id = stored }
                        let hash = StoredActorIndex.hash(actor)
                        batch.append(
                            CopiedRow(
                                actor: actor,
                                hash: hash,
                                micros: micros,
                                position: position,
                                sampled: sampled,
                                id: id
                            )
                        )
                    }
                    // A loop of loads alone, so that many are under way at once.
                    stored.warm(batch.lazy.map(\.hash))
                    for row in batch {
                        var steps: UInt16 = 0
                        var exclusions: UInt16 = 0
                        if row.position > 0 {
                            (steps, exclusions) = (masks[row.position - 1].steps, masks[row.position - 1].exclusions)
                            seen[row.position - 1] = true
                        }
                        let index = stored.index(row.actor, hash: row.hash) { evaluation.actorIndex(stored: $0) }
                        evaluation.consume(
                            FunnelRecord(
                                actor: index,
                                value: -1,
                                time: Self.nanoseconds(postgresMicroseconds: row.micros),
                                idHigh: row.id.high,
                                idLow: row.id.low,
                                steps: steps,
                                exclusions: exclusions
                            ),
                            sampled: row.sampled
                        )
                    }
                }
            }
            try await connection.execute("COMMIT")
            names.withLock { names in
                for (index, mask) in masks.enumerated() where seen[index] { names.insert(mask.name) }
            }
        } catch {
            await connection.rollback()
            throw error
        }
    }

    /// Rows read ahead of their actors' lookups (see ``StoredActorIndex/warm(_:)``).
    static let warmBatch = 256

    /// One row of a per-event COPY, its actor's bytes still in the chunk.
    struct CopiedRow {
        var actor: UnsafeRawBufferPointer
        var hash: UInt64
        var micros: Int64
        var position: Int
        var sampled: Bool
        var id: (high: UInt64, low: UInt64)
    }

    /// Sets custom settings for the transaction, each value a bound parameter.
    func bindSettings(_ settings: [String: String]) async throws {
        let names = settings.keys.sorted()
        let calls = names.indices.map { "set_config('\(names[$0])', $\($0 + 1), true)" }
        try await connection.query("SELECT " + calls.joined(separator: ", "), names.map { settings[$0] })
    }

    /// A binary `timestamptz` (microseconds since 2000-01-01 UTC) as nanoseconds since 1970.
    static func nanoseconds(postgresMicroseconds micros: Int64) -> Int64 {
        (micros + 946_684_800_000_000) * 1_000
    }
}
