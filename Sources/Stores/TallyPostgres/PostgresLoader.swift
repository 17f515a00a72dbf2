import Logging
import TallyCore
import TallyPipeline

/// One connection to PostgreSQL and what a sink learns by loading through it: the partitions it
/// ensured, the actors it stored, whether direct COPY still pays.
///
/// A ``PostgresSink`` hands each loader to one write at a time, so nothing here is shared between
/// concurrent writes: their correctness rests on that, not on how an actor interleaves them. The
/// counts go to the sink's ``LoadCounts`` as each transaction commits.
actor PostgresLoader {
    let connection: PostgresConnection
    /// ``LoadStatements/copyEvents(serverVersion:citus:)`` for this connection's server.
    private let copyEvents: String
    private let totals: Locked<LoadCounts>
    private let maintainRollups: Bool
    private let maintainUserSets: Bool
    private let maintainNameSets: Bool
    private let logger: Logger

    private init(
        connection: PostgresConnection,
        copyEvents: String,
        totals: Locked<LoadCounts>,
        maintainRollups: Bool,
        maintainUserSets: Bool,
        maintainNameSets: Bool,
        logger: Logger
    ) {
        self.connection = connection
        self.copyEvents = copyEvents
        self.totals = totals
        self.maintainRollups = maintainRollups
        self.maintainUserSets = maintainUserSets
        self.maintainNameSets = maintainNameSets
        self.logger = logger
    }

    /// Connects and prepares a connection: staging tables, the rollup statement.
    static func connect(
        _ conninfo: String?,
        totals: Locked<LoadCounts>,
        maintainRollups: Bool,
        maintainUserSets: Bool,
        maintainNameSets: Bool = true,
        logger: Logger
    ) async throws -> PostgresLoader {
        let connection = try await PostgresConnection.connect(conninfo)
        try await connection.execute(
            """
            SET synchronous_commit = on;
            CREATE TEMP TABLE IF NOT EXISTS tally_staging (
                event_id uuid NOT NULL, occurred_at timestamptz NOT NULL, name text NOT NULL, feature text NOT NULL,
                properties jsonb NOT NULL, sent_at timestamptz, received_at timestamptz, user_id text,
                anonymous_id text, session_id text, context jsonb, schema_version text, violations jsonb,
                source_id text, corrected_at timestamptz, sample_rate double precision,
                device_occurred_at timestamptz
            ) ON COMMIT DELETE ROWS;
            CREATE TEMP TABLE IF NOT EXISTS tally_identity_staging (
                event_id uuid NOT NULL, occurred_at timestamptz NOT NULL, type text NOT NULL, name text NOT NULL,
                user_id text, anonymous_id text, group_id text, previous_id text, traits jsonb NOT NULL,
                context jsonb, sent_at timestamptz, received_at timestamptz, source_id text,
                corrected_at timestamptz, device_occurred_at timestamptz
            ) ON COMMIT DELETE ROWS;
            """
        )
        try await connection.prepare(LoadStatements.rollupStatementName, LoadStatements.rollupStatement)
        let traits = try await connection.query(LoadStatements.serverTraits).first
        return PostgresLoader(
            connection: connection,
            copyEvents: LoadStatements.copyEvents(
                serverVersion: traits?.first.flatMap { $0 }.flatMap { Int($0) } ?? 0,
                citus: traits?.last.flatMap { $0 } == "t"
            ),
            totals: totals,
            maintainRollups: maintainRollups,
            maintainUserSets: maintainUserSets,
            maintainNameSets: maintainNameSets,
            logger: logger
        )
    }

    /// Loads one batch: events, then identity records.
    func write(_ batch: [EventEnvelope]) async throws {
        var batch = batch
        if batch.contains(where: { $0.deviceOccurredAt != nil }) { try await placeFromFirstCopy(&batch) }
        if batch.contains(where: { $0.kind.isIdentity }) {
            try await load(batch.filter { !$0.kind.isIdentity }, rows: nil)
            try await loadIdentities(batch.filter(\.kind.isIdentity), rows: nil)
        } else {
            try await load(batch, rows: nil)
        }
    }

    /// Loads events replayed from `tally.failed_events`: `rows[i]` is the row `batch[i]` came from.
    /// Each transaction that stores events deletes their rows; an event the server refuses again
    /// updates its row's reason instead of adding one. So a row is replayed exactly once, however
    /// the replay is interrupted.
    func replay(_ batch: [EventEnvelope], rows: [Int64]) async throws {
        let identities = batch.indices.filter { batch[$0].kind.isIdentity }
        let events = batch.indices.filter { !batch[$0].kind.isIdentity }
        try await load(events.map { batch[$0] }, rows: events.map { rows[$0] })
        try await loadIdentities(identities.map { batch[$0] }, rows: identities.map { rows[$0] })
    }

    /// Loads `batch`, splitting it when the server refuses some of its data.
    private func load(_ batch: [EventEnvelope], rows: [Int64]?) async throws {
        guard !batch.isEmpty else { return }
        do {
            let count = try await loadOnce(batch, deleting: rows)
            totals.withLock {
                $0.inserted += count
                $0.duplicates += batch.count - count
            }
        } catch let error as PostgresError where error.isDataProblem {
            if batch.count == 1 {
                try await storeFailed(batch[0], error: error, row: rows?[0])
                return
            }
            let middle = batch.count / 2
            try await load(Array(batch[..<middle]), rows: rows.map { Array($0[..<middle]) })
            try await load(Array(batch[middle...]), rows: rows.map { Array($0[middle...]) })
        }
    }

    /// One transaction: stage, insert new rows, update rollups from exactly those rows.
    private func loadOnce(_ batch: [EventEnvelope], deleting failedRows: [Int64]?) async throws -> Int {
        let deletion = failedRows.map(Self.deletion)
        var rows = spareRows.popLast() ?? []
        rows.removeAll(keepingCapacity: true)
        rows.reserveCapacity(batch.count * 400)
        defer { if spareRows.isEmpty { spareRows.append(rows) } }
        var first = batch[0].occurredAt
        var last = first
        // Repeats within the batch are dropped here, so the statements need no DISTINCT ON (a sort).
        var seen = Set<EventID>(minimumCapacity: batch.count)
        var unique = 0
        var encoded = spareEncoded.popLast() ?? []
        encoded.removeAll(keepingCapacity: true)
        defer { if spareEncoded.isEmpty { spareEncoded.append(encoded) } }
        rows.append(contentsOf: CopyBinaryEncoder.header)
        for event in batch where seen.insert(event.eventID).inserted {
            let fields = CopyBinaryEncoder.append(event, to: &rows)
            if maintainRollups {
                encoded.append(
                    RollupBatch.Row(occurredAt: event.occurredAt, fields: fields, sampleRate: event.sampleRate)
                )
            }
            unique += 1
            if event.occurredAt < first { first = event.occurredAt }
            if last < event.occurredAt { last = event.occurredAt }
        }
        rows.append(contentsOf: CopyBinaryEncoder.trailer)
        let months = "\(first.utcDate.year)-\(first.utcDate.month)..\(last.utcDate.year)-\(last.utcDate.month)"
        if !ensuredMonths.contains(months) {
            try await connection.query(
                "SELECT tally.ensure_partitions($1::date, $2::date)",
                [first.utcDate.isoString, last.utcDate.isoString]
            )
            ensuredMonths.insert(months)
        }
        // Fast path: new events (the usual case) COPY straight into tally.events, and the rollups
        // come from the batch itself, since every row was inserted. One of them already stored
        // (a re-run, a retry) makes the COPY fail with 23505: then the staging path below inserts
        // only the new ones and counts exactly those.
        if optimisticCopy {
            let rollups =
                maintainRollups
                ? RollupBatch(rows: encoded, in: rows, userSets: maintainUserSets, nameSets: maintainNameSets)
                    .parameters(
                        excluding: knownActors,
                        knownByName: knownNameActors
                    )
                : nil
            let arrays = rollups?.arrays
            do {
                try await connection.transaction { [rows, copyEvents] transaction in
                    try transaction.copyIn(copyEvents, data: rows)
                    if let arrays {
                        try transaction.queryPrepared(LoadStatements.rollupStatementName, binary: arrays)
                    }
                    if let deletion { try transaction.execute(deletion) }
                }
                if let rollups { rememberActors(rollups.newActors) }
                return unique
            } catch let error as PostgresError where error.sqlState == "23505" {
                optimisticMisses += 1
                if optimisticMisses >= 3 { optimisticCopy = false }  // mostly duplicates: stop trying
            }
        }
        let statement = maintainRollups ? LoadStatements.insertStatement : LoadStatements.insertOnlyStatement
        let result = try await connection.transaction { [rows] transaction in
            try transaction.copyIn(
                "COPY tally_staging (\(CopyBinaryEncoder.columns)) FROM STDIN (FORMAT binary)",
                data: rows
            )
            let inserted = try transaction.execute(statement)
            if let deletion { try transaction.execute(deletion) }
            return inserted
        }
        return result.first?.first.flatMap { $0 }.flatMap { Int($0) } ?? 0
    }

    /// identify / group / alias records into `tally.identities`: COPY into a staging table, then
    /// `INSERT … ON CONFLICT DO NOTHING`, split like events when the server refuses some data.
    private func loadIdentities(_ records: [EventEnvelope], rows failedRows: [Int64]?) async throws {
        guard !records.isEmpty else { return }
        let deletion = failedRows.map(Self.deletion)
        var rows = CopyBinaryEncoder.header
        for record in records { CopyBinaryEncoder.appendIdentity(record, to: &rows) }
        rows.append(contentsOf: CopyBinaryEncoder.trailer)
        do {
            let result = try await connection.transaction { [rows] transaction in
                try transaction.copyIn(
                    "COPY tally_identity_staging (\(CopyBinaryEncoder.identityColumns)) FROM STDIN (FORMAT binary)",
                    data: rows
                )
                let inserted = try transaction.execute(
                    """
                    WITH keys AS (
                        INSERT INTO tally.identities (\(CopyBinaryEncoder.identityColumns))
                        SELECT DISTINCT ON (event_id, occurred_at) \(CopyBinaryEncoder.identityColumns)
                        FROM tally_identity_staging
                        ON CONFLICT DO NOTHING
                        RETURNING 1
                    )
                    SELECT count(*) FROM keys
                    """
                )
                if let deletion { try transaction.execute(deletion) }
                return inserted
            }
            let count = result.first?.first.flatMap { $0 }.flatMap { Int($0) } ?? 0
            totals.withLock {
                $0.identitiesInserted += count
                $0.duplicates += records.count - count
            }
        } catch let error as PostgresError where error.isDataProblem {
            if records.count == 1 {
                try await storeFailed(records[0], error: error, row: failedRows?[0])
                return
            }
            let middle = records.count / 2
            try await loadIdentities(Array(records[..<middle]), rows: failedRows.map { Array($0[..<middle]) })
            try await loadIdentities(Array(records[middle...]), rows: failedRows.map { Array($0[middle...]) })
        }
    }

    /// Events from the future (``TallyCore/EventEnvelope/deviceOccurredAt``) take the time the
    /// store gave their first copy, so a re-send placed at a later receipt is still a duplicate.
    /// First come, first kept: `ON CONFLICT DO NOTHING` waits for a concurrent loader's insert of
    /// the same id to commit, and the `SELECT` after it reads the winner.
    private func placeFromFirstCopy(_ batch: inout [EventEnvelope]) async throws {
        let placed = batch.indices.filter { batch[$0].deviceOccurredAt != nil }
        let ids = "{" + placed.map { batch[$0].eventID.description }.joined(separator: ",") + "}"
        let times = "{" + placed.map { batch[$0].occurredAt.rfc3339 }.joined(separator: ",") + "}"
        let device = "{" + placed.map { batch[$0].deviceOccurredAt?.rfc3339 ?? "" }.joined(separator: ",") + "}"
        try await connection.query(
            """
            INSERT INTO tally.skewed_events (event_id, occurred_at, device_occurred_at)
            SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[]) ON CONFLICT DO NOTHING
            """,
            [ids, times, device]
        )
        let rows = try await connection.query(
            """
            SELECT event_id, (extract(epoch FROM occurred_at) * 1000000)::bigint
            FROM tally.skewed_events WHERE event_id = ANY($1::uuid[])
            """,
            [ids]
        )
        var first: [String: Timestamp] = [:]
        for row in rows {
            guard let id = row[0], let micros = row[1].flatMap({ Int64($0) }) else { continue }
            first[id] = Timestamp(nanosecondsSinceEpoch: micros * 1_000)
        }
        for index in placed {
            if let time = first[batch[index].eventID.description] { batch[index].occurredAt = time }
        }
    }

    /// The COPY buffer, kept between batches: allocating and freeing ~2 MB per batch showed up as
    /// malloc consolidation in profiles. (An array of at most one: a split batch's halves load in
    /// turn, so a second buffer is never needed.)
    private var spareRows: [[UInt8]] = []
    /// Where each row's text fields are, for the rollups (kept between batches likewise).
    private var spareEncoded: [[RollupBatch.Row]] = []

    /// Month ranges whose partitions exist (checked once per connection: two loaders may both
    /// ensure a month, which the function makes harmless).
    private var ensuredMonths = Set<String>()

    /// Whether to try the direct COPY first; turned off after repeated conflicts (a re-run).
    private var optimisticCopy = true
    private var optimisticMisses = 0

    /// Actors known to be in `tally.daily_actor_sets` for their day and feature: sending them
    /// again would only repeat them (counts use DISTINCT), so batches leave them out. Filled only
    /// after a commit; emptied at 16,384 keys (under 2 MB), to stay within the memory bound.
    private var knownActors = ActorSet(capacity: PostgresSink.knownActorLimit)
    /// The same for `tally.daily_name_actor_sets`, by day and event name.
    private var knownNameActors = ActorSet(capacity: PostgresSink.knownActorLimit)

    private func rememberActors(_ actors: RollupBatch.NewActors) {
        if knownActors.count + actors.count > PostgresSink.knownActorLimit { knownActors.removeAll() }
        knownActors.formUnion(actors.set, entries: actors.entries)
        if knownNameActors.count + actors.nameEntries.count > PostgresSink.knownActorLimit {
            knownNameActors.removeAll()
        }
        knownNameActors.formUnion(actors.nameSet, entries: actors.nameEntries)
    }

    /// `DELETE` of the replayed rows `rows` (our own integers, so written into the statement).
    private static func deletion(_ rows: [Int64]) -> String {
        "DELETE FROM tally.failed_events WHERE id = ANY('{" + rows.map(String.init).joined(separator: ",")
            + "}'::bigint[])"
    }

    /// Keeps `event` in `tally.failed_events` (reason `postgres_<SQLSTATE>`, the server's whole
    /// report as the message); a replayed one (`row`) updates its row instead (or adds one if a
    /// transaction that stored another event of that row already deleted it).
    private func storeFailed(_ event: EventEnvelope, error: PostgresError, row: Int64?) async throws {
        totals.withLock { $0.failed += 1 }
        logger.warning(
            "event refused by PostgreSQL, kept in tally.failed_events",
            metadata: ["tally.event_id": "\(event.eventID)", "tally.sqlstate": "\(error.sqlState ?? "")"]
        )
        let reject = Reject(
            content: .event(event),
            reason: Reject.Reason(
                code: "postgres_" + (error.sqlState ?? "error"),
                message: error.serverMessage ?? error.message
            ),
            origin: .sink(name: "postgres", attempts: 1),
            failedAt: .now()
        )
        let parameters = FailedEventRows.parameters(reject)
        guard let row else {
            try await connection.query(FailedEventRows.insert, parameters)
            return
        }
        try await connection.query(FailedEventRows.replace, parameters + [String(row)])
    }
}
