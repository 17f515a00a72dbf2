import TallyCore
import TallyPostgres

extension PostgresReportSource {
    /// Retention whose start and return events names alone decide: per event its actor, time,
    /// the index of its name among the report's names, and whether it was sampled, in COPY's
    /// binary format (the range and names bound through set_config, as for funnels).
    func feedRetention(_ needs: EventNeeds, into evaluation: inout RetentionEvaluation) async throws {
        let (start, returning) = evaluation.names
        let all = start.union(returning).sorted()
        let sql = """
            COPY (SELECT coalesce(user_id, anonymous_id), occurred_at,
                array_position((SELECT current_setting('tally.report_names')::text[]), name)::int2,
                sample_rate IS NOT NULL
            FROM tally.events
            WHERE occurred_at < (SELECT current_setting('tally.report_to')::timestamptz)
              AND coalesce(user_id, anonymous_id) IS NOT NULL
              AND ((occurred_at >= (SELECT current_setting('tally.report_from')::timestamptz)
                    AND name = ANY((SELECT current_setting('tally.report_names')::text[])::text[]))
                OR name = ANY((SELECT current_setting('tally.report_lookback')::text[])::text[]))
            ) TO STDOUT (FORMAT binary)
            """
        try await connection.execute("BEGIN")
        do {
            try await bindSettings(
                [
                    "tally.report_from": needs.from.rfc3339, "tally.report_to": needs.to.rfc3339,
                    "tally.report_names": Self.arrayLiteral(all),
                    "tally.report_lookback": Self.arrayLiteral(needs.lookbackNames.sorted()),
                ]
            )
            var stored = StoredActorIndex()
            let startFlags = all.map { start.contains($0) }
            let returnFlags = all.map { returning.contains($0) }
            var seen = [Bool](repeating: false, count: all.count)
            let from = needs.from.nanosecondsSinceEpoch
            var batch: [CopiedRow] = []
            batch.reserveCapacity(Self.warmBatch)
            try await connection.copyOut(sql) { chunk in
                var cursor = CopyBinaryCursor(chunk)
                while !cursor.atEnd {
                    // As the funnel's rows: read a batch, load its actors' slots, then look up.
                    batch.removeAll(keepingCapacity: true)
                    while batch.count < Self.warmBatch, !cursor.atEnd {
                        _ = cursor.row()
                        guard let actor = cursor.field(), let micros = cursor.integer() else { continue }
                        let position = Int(cursor.integer() ?? 0) - 1
                        let sampled = cursor.field()?.first == 1
                        guard position >= 0 else { continue }
                        batch.append(
                            CopiedRow(
                                actor: actor,
                                hash: StoredActorIndex.hash(actor),
                                micros: micros,
                                position: position,
                                sampled: sampled,
                                id: (0, 0)
                            )
                        )
                    }
                    stored.warm(batch.lazy.map(\.hash))
                    for row in batch {
                        let (starts, returns) = (startFlags[row.position], returnFlags[row.position])
                        let time = Self.nanoseconds(postgresMicroseconds: row.micros)
                        if time >= from { seen[row.position] = true }
                        let index = stored.index(row.actor, hash: row.hash) { evaluation.actorIndex(stored: $0) }
                        evaluation.consume(
                            actor: index,
                            time: Timestamp(nanosecondsSinceEpoch: time),
                            starts: starts,
                            returns: returns,
                            sampled: row.sampled
                        )
                    }
                }
            }
            try await connection.execute("COMMIT")
            names.withLock { names in
                for (index, name) in all.enumerated() where seen[index] { names.insert(name) }
            }
        } catch {
            await connection.rollback()
            throw error
        }
    }
}

extension PostgresReportSource {
    /// Retention over UTC days (``RetentionEvaluation/alignsWithUTCDays``) from
    /// `tally.daily_name_actor_sets`: each actor of a start or return name's day counts as an event
    /// at that day's midnight, which puts it in the same period as its events. Returns false,
    /// having fed nothing, when the database has no such table (not migrated yet).
    func feedRetentionDays(_ needs: EventNeeds, into evaluation: inout RetentionEvaluation) async throws -> Bool {
        let (start, returning) = evaluation.names
        let all = start.union(returning).sorted()
        let sql = """
            COPY (SELECT day - DATE '1970-01-01',
                array_position((SELECT current_setting('tally.report_names')::text[]), name)::int2, actors, sampled
            FROM tally.daily_name_actor_sets
            WHERE name = ANY((SELECT current_setting('tally.report_names')::text[])::text[])
              AND day < (SELECT current_setting('tally.report_to')::date)
              AND (day >= (SELECT current_setting('tally.report_from')::date)
                   OR name = ANY((SELECT current_setting('tally.report_lookback')::text[])::text[]))
            ) TO STDOUT (FORMAT binary)
            """
        try await connection.execute("BEGIN")
        do {
            let exists = try await connection.query("SELECT to_regclass('tally.daily_name_actor_sets') IS NOT NULL")
            guard exists.first?.first == "t" else {
                try await connection.execute("COMMIT")
                return false
            }
            try await bindSettings(
                [
                    "tally.report_from": needs.from.utcDate.isoString, "tally.report_to": needs.to.utcDate.isoString,
                    "tally.report_names": Self.arrayLiteral(all),
                    "tally.report_lookback": Self.arrayLiteral(needs.lookbackNames.sorted()),
                ]
            )
            let startFlags = all.map { start.contains($0) }
            let returnFlags = all.map { returning.contains($0) }
            var seen = [Bool](repeating: false, count: all.count)
            let firstDay = needs.from.nanosecondsSinceEpoch / 86_400_000_000_000
            var stored = StoredActorIndex()
            var members: [Int32] = []
            var ids: [(id: UnsafeRawBufferPointer, hash: UInt64)] = []
            try await connection.copyOut(sql) { chunk in
                var cursor = CopyBinaryCursor(chunk)
                while !cursor.atEnd {
                    _ = cursor.row()
                    guard let day = cursor.integer(), let position = cursor.integer().map({ Int($0) - 1 }),
                        position >= 0, let actors = cursor.field()
                    else { continue }
                    let sampled = cursor.field()?.first == 1
                    let (starts, returns) = (startFlags[position], returnFlags[position])
                    let midnight = Timestamp(secondsSinceEpoch: day * 86_400)
                    // The set's ids and hashes first, their slots loaded together (see
                    // StoredActorIndex.warm), then looked up.
                    var elements = CopyBinaryCursor(actors)
                    ids.removeAll(keepingCapacity: true)
                    elements.forEachArrayElement { id in
                        if let id { ids.append((id, StoredActorIndex.hash(id))) }
                    }
                    members.removeAll(keepingCapacity: true)
                    for batch in stride(from: 0, to: ids.count, by: Self.warmBatch) {
                        let slice = ids[batch..<min(batch + Self.warmBatch, ids.count)]
                        stored.warm(slice.lazy.map(\.hash))
                        for (id, hash) in slice {
                            members.append(stored.index(id, hash: hash) { evaluation.actorIndex(stored: $0) })
                        }
                    }
                    evaluation.consume(actors: members, time: midnight, starts: starts, returns: returns)
                    if day >= firstDay {
                        if !members.isEmpty { seen[position] = true }
                        if sampled { evaluation.noteSampled() }
                    }
                }
            }
            try await connection.execute("COMMIT")
            names.withLock { names in
                for (index, name) in all.enumerated() where seen[index] { names.insert(name) }
            }
            return true
        } catch {
            await connection.rollback()
            throw error
        }
    }
}
