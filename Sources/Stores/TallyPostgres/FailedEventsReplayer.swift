package import Logging
package import TallyCore

/// Replays `tally.failed_events` into `tally.events` (`tally replay --failed-events`), a batch of
/// rows at a time, in the order they were kept.
///
/// Each row's `event` is handed to a decision the caller makes (decode, check against the fixed
/// tracking plans): rows whose events are now valid are loaded through the sink's loader, and the
/// transaction that stores their events deletes the rows; rows that still fail keep their place
/// with the new reason. A replay stopped at any point (a kill, a lost connection) leaves every row
/// either replayed (deleted, its events stored) or not (kept, nothing stored), and event ids
/// deduplicate, so running it again stores each event exactly once.
package struct FailedEventsReplayer: Sendable {
    /// One row of `tally.failed_events`.
    package struct Row: Sendable {
        /// Its key (sql/0011).
        package var id: Int64
        /// When it was kept (for a collector's reject: when the event arrived).
        package var failedAt: Timestamp?
        /// Why, as kept.
        package var reason: String
        /// The event's JSON (`null` when none could be kept).
        package var event: String
    }

    /// What to do with a row.
    package enum Decision: Sendable {
        /// Store these events (one row may hold several: a batch) and delete the row.
        case replay([EventEnvelope])
        /// Keep the row, with this reason and detail.
        case stillFails(reason: String, detail: String)
        /// Keep the row as it is (it holds no event).
        case keep
    }

    /// What a replay did.
    package struct Report: Sendable {
        /// Rows read.
        package var rows = 0
        /// Rows whose events were stored (or were already), deleted; not those PostgreSQL refused again.
        package var replayedRows = 0
        /// Events newly inserted.
        package var inserted = 0
        /// Events already stored.
        package var duplicates = 0
        /// Events PostgreSQL refused again: their rows stay, with its reason.
        package var refused = 0
        /// Rows that still fail, by reason.
        package var stillFailing: [String: Int] = [:]
        /// Rows holding no event, kept.
        package var kept = 0
        /// Whether it stopped before the last row.
        package var interrupted = false
        /// Whether nothing was changed.
        package var dryRun = false
    }

    private let conninfo: String?
    private let batchSize: Int
    private let logger: Logger
    /// Called after each batch is committed with the number of batches so far (tests stop a replay
    /// half-way there).
    package var afterBatch: (@Sendable (Int) throws -> Void)?

    /// A replayer for the database at `conninfo`, `batchSize` rows per transaction.
    package init(conninfo: String?, batchSize: Int = 1_000, logger: Logger = Logger(label: "tally.replay")) {
        self.conninfo = conninfo
        self.batchSize = batchSize
        self.logger = logger
    }

    /// Replays every row (`dryRun`: decides, changes nothing). `shouldStop` is asked between batches.
    package func run(
        dryRun: Bool = false,
        shouldStop: @Sendable () -> Bool = { false },
        decide: (Row) -> Decision
    ) async throws -> Report {
        let connection = try await PostgresConnection.connect(conninfo)
        let sink = PostgresSink(conninfo: conninfo, maxConcurrentWrites: 1, logger: logger)
        do {
            let report = try await replay(connection, sink, dryRun: dryRun, shouldStop: shouldStop, decide: decide)
            try await sink.shutdown()
            await connection.close()
            return report
        } catch {
            try? await sink.shutdown()
            await connection.close()
            throw error
        }
    }

    private func replay(
        _ connection: PostgresConnection,
        _ sink: PostgresSink,
        dryRun: Bool,
        shouldStop: @Sendable () -> Bool,
        decide: (Row) -> Decision
    ) async throws -> Report {
        var report = Report()
        report.dryRun = dryRun
        var last: Int64 = 0
        var batches = 0
        while true {
            if shouldStop() {
                report.interrupted = true
                break
            }
            let rows = try await connection.query(
                """
                SELECT id, to_char(failed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), reason,
                       coalesce(detail, ''), event
                FROM tally.failed_events WHERE id > $1::bigint ORDER BY id LIMIT \(batchSize)
                """,
                [String(last)]
            ).compactMap { fields -> Row? in
                guard fields.count == 5, let id = fields[0].flatMap({ Int64($0) }) else { return nil }
                return Row(
                    id: id,
                    failedAt: fields[1].flatMap { Timestamp(rfc3339: $0) },
                    reason: fields[2] ?? "",
                    event: fields[4] ?? "null"
                )
            }
            guard let lastRow = rows.last else { break }
            last = lastRow.id
            report.rows += rows.count
            var events: [EventEnvelope] = []
            var owners: [Int64] = []
            var updates: [(id: Int64, reason: String, detail: String)] = []
            for row in rows {
                switch decide(row) {
                case .replay(let replayed):
                    report.replayedRows += 1
                    events += replayed
                    owners += Array(repeating: row.id, count: replayed.count)
                case .stillFails(let reason, let detail):
                    report.stillFailing[reason, default: 0] += 1
                    updates.append((row.id, reason, detail))
                case .keep:
                    report.kept += 1
                }
            }
            if dryRun { continue }
            if !updates.isEmpty { try await update(connection, updates) }
            if !events.isEmpty {
                let refused = await sink.failed
                try await sink.replay(events, rows: owners)
                if await sink.failed > refused {
                    // Rows whose events PostgreSQL refused again are still there: not replayed.
                    let left = try await connection.query(
                        "SELECT count(*) FROM tally.failed_events WHERE id = ANY($1::bigint[])",
                        ["{" + Set(owners).map(String.init).joined(separator: ",") + "}"]
                    )
                    report.replayedRows -= Int(left.first?.first.flatMap { $0 } ?? "0") ?? 0
                }
            }
            batches += 1
            try afterBatch?(batches)
        }
        report.inserted = await sink.inserted + sink.identitiesInserted
        report.duplicates = await sink.duplicates
        report.refused = await sink.failed
        return report
    }

    /// The new reason of rows that still fail, in one transaction; a row that fails for the reason
    /// it was kept for keeps its detail (the collector's request id, index and source).
    private func update(
        _ connection: PostgresConnection,
        _ rows: [(id: Int64, reason: String, detail: String)]
    ) async throws {
        try await connection.execute("BEGIN")
        do {
            for row in rows {
                try await connection.query(
                    """
                    UPDATE tally.failed_events SET reason = $2, detail = $3
                    WHERE id = $1::bigint AND reason IS DISTINCT FROM $2
                    """,
                    [String(row.id), row.reason, row.detail]
                )
            }
            try await connection.execute("COMMIT")
        } catch {
            await connection.rollback()
            throw error
        }
    }
}
