public import Logging
public import TallyCore
public import TallyPipeline

/// Loads batches into PostgreSQL: COPY into a temporary staging table, then, in the same
/// transaction, `INSERT … ON CONFLICT DO NOTHING` into `tally.events` and rollup upkeep from the
/// rows actually inserted, so counts stay exact under retries and re-runs.
///
/// A batch the server refuses for a data reason (SQLSTATE class 22/23, e.g. a NUL byte) is split
/// in halves until the offending events are alone; those go to `tally.failed_events` and the rest
/// load. A lost connection is reopened on the next write; the pipeline retries the batch.
public actor PostgresSink: EventSink {
    public nonisolated let name = "postgres"
    private let conninfo: String?
    private let logger: Logger
    /// Idle connections; one per concurrent write (``maxConcurrentWrites``), opened on demand.
    private var idle: [PostgresConnection] = []
    /// Rows inserted into `tally.events`.
    public private(set) var inserted = 0
    /// Rows skipped because their `event_id` was already stored.
    public private(set) var duplicates = 0
    /// identify / group / alias records inserted into `tally.identities`.
    public private(set) var identitiesInserted = 0
    /// Events refused by the server and kept in `tally.failed_events`.
    public private(set) var failed = 0

    private let maintainRollups: Bool
    private let maintainUserSets: Bool

    /// A sink for the database at `conninfo` (URL or conninfo; nil: libpq's `PG*` variables).
    /// `maintainRollups: false` and `maintainUserSets: false` only exist to measure what their
    /// upkeep costs: summaries (or their user counts) are then wrong.
    public init(
        conninfo: String?,
        maintainRollups: Bool = true,
        maintainUserSets: Bool = true,
        logger: Logger = Logger(label: "tally.postgres")
    ) {
        self.conninfo = conninfo
        self.maintainRollups = maintainRollups
        self.maintainUserSets = maintainUserSets
        self.logger = logger
    }

    /// Two batches load at once, on two connections: while the server inserts one, the client
    /// encodes the next (measured: 1.5× the throughput of one connection on this 2-core machine).
    public nonisolated var maxConcurrentWrites: Int { 2 }

    public func write(_ batch: [EventEnvelope]) async throws {
        let connection = try await acquire()
        do {
            if batch.contains(where: { $0.kind.isIdentity }) {
                try await load(batch.filter { !$0.kind.isIdentity }, on: connection)
                try await loadIdentities(batch.filter(\.kind.isIdentity), on: connection)
            } else {
                try await load(batch, on: connection)
            }
            idle.append(connection)
        } catch let error as PostgresError where error.isConnectionProblem {
            // Dropped (not returned to the idle list): the next write opens a new one.
            throw error
        } catch {
            idle.append(connection)
            throw error
        }
    }

    public func shutdown() async throws {
        for connection in idle { await connection.close() }
        idle = []
    }

    /// An idle connection, or a new one: the pipeline never runs more writes than
    /// ``maxConcurrentWrites``, so at most that many exist.
    private func acquire() async throws -> PostgresConnection {
        if let connection = idle.popLast() { return connection }
        return try await connect()
    }

    private func connect() async throws -> PostgresConnection {
        let connection = try await PostgresConnection.connect(conninfo)
        try await connection.execute(
            """
            SET synchronous_commit = on;
            CREATE TEMP TABLE IF NOT EXISTS tally_staging (
                event_id uuid NOT NULL, occurred_at timestamptz NOT NULL, name text NOT NULL, feature text NOT NULL,
                properties jsonb NOT NULL, sent_at timestamptz, received_at timestamptz, user_id text,
                anonymous_id text, session_id text, context jsonb, schema_version text, violations jsonb,
                source_id text
            ) ON COMMIT DELETE ROWS;
            CREATE TEMP TABLE IF NOT EXISTS tally_identity_staging (
                event_id uuid NOT NULL, occurred_at timestamptz NOT NULL, type text NOT NULL, name text NOT NULL,
                user_id text, anonymous_id text, group_id text, previous_id text, traits jsonb NOT NULL,
                context jsonb, sent_at timestamptz, received_at timestamptz, source_id text
            ) ON COMMIT DELETE ROWS;
            """
        )
        try await connection.prepare(Self.rollupStatementName, Self.rollupStatement)
        return connection
    }

    /// Loads `batch`, splitting it when the server refuses some of its data.
    private func load(_ batch: [EventEnvelope], on connection: PostgresConnection) async throws {
        guard !batch.isEmpty else { return }
        do {
            let count = try await loadOnce(batch, on: connection)
            inserted += count
            duplicates += batch.count - count
        } catch let error as PostgresError where error.isDataProblem {
            if batch.count == 1 {
                try await storeFailed(batch[0], error: error, on: connection)
                return
            }
            let middle = batch.count / 2
            try await load(Array(batch[..<middle]), on: connection)
            try await load(Array(batch[middle...]), on: connection)
        }
    }

    /// One transaction: stage, insert new rows, update rollups from exactly those rows.
    private func loadOnce(_ batch: [EventEnvelope], on connection: PostgresConnection) async throws -> Int {
        var rows = spareRows.popLast() ?? []
        rows.removeAll(keepingCapacity: true)
        rows.reserveCapacity(batch.count * 400)
        defer { if spareRows.count < maxConcurrentWrites { spareRows.append(rows) } }
        var first = batch[0].occurredAt
        var last = first
        // Repeats within the batch are dropped here, so the statements need no DISTINCT ON (a sort).
        var seen = Set<EventID>(minimumCapacity: batch.count)
        var unique = 0
        var encoded = spareEncoded.popLast() ?? []
        encoded.removeAll(keepingCapacity: true)
        defer { if spareEncoded.count < maxConcurrentWrites { spareEncoded.append(encoded) } }
        rows.append(contentsOf: CopyBinaryEncoder.header)
        for event in batch where seen.insert(event.eventID).inserted {
            let fields = CopyBinaryEncoder.append(event, to: &rows)
            if maintainRollups { encoded.append(RollupBatch.Row(occurredAt: event.occurredAt, fields: fields)) }
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
            try await connection.execute("BEGIN")
            do {
                try await connection.copyIn(
                    "COPY tally.events (\(CopyBinaryEncoder.columns)) FROM STDIN (FORMAT binary)",
                    data: rows
                )
                var written = RollupBatch.NewActors()
                if maintainRollups {
                    let parameters = RollupBatch(rows: encoded, in: rows, userSets: maintainUserSets)
                        .parameters(excluding: knownActors)
                    try await connection.queryPrepared(Self.rollupStatementName, binary: parameters.arrays)
                    written = parameters.newActors
                }
                try await connection.execute("COMMIT")
                rememberActors(written)
                return unique
            } catch let error as PostgresError where error.sqlState == "23505" {
                try? await connection.execute("ROLLBACK")
                optimisticMisses += 1
                if optimisticMisses >= 3 { optimisticCopy = false }  // mostly duplicates: stop trying
            } catch {
                try? await connection.execute("ROLLBACK")
                throw error
            }
        }
        try await connection.execute("BEGIN")
        do {
            try await connection.copyIn(
                "COPY tally_staging (\(CopyBinaryEncoder.columns)) FROM STDIN (FORMAT binary)",
                data: rows
            )
            let result = try await connection.query(maintainRollups ? Self.insertStatement : Self.insertOnlyStatement)
            try await connection.execute("COMMIT")
            return result.first?.first.flatMap { $0 }.flatMap { Int($0) } ?? 0
        } catch {
            try? await connection.execute("ROLLBACK")
            throw error
        }
    }

    /// identify / group / alias records into `tally.identities`: COPY into a staging table, then
    /// `INSERT … ON CONFLICT DO NOTHING`, split like events when the server refuses some data.
    private func loadIdentities(_ records: [EventEnvelope], on connection: PostgresConnection) async throws {
        guard !records.isEmpty else { return }
        var rows = CopyBinaryEncoder.header
        for record in records { CopyBinaryEncoder.appendIdentity(record, to: &rows) }
        rows.append(contentsOf: CopyBinaryEncoder.trailer)
        try await connection.execute("BEGIN")
        do {
            try await connection.copyIn(
                "COPY tally_identity_staging (\(CopyBinaryEncoder.identityColumns)) FROM STDIN (FORMAT binary)",
                data: rows
            )
            let result = try await connection.query(
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
            try await connection.execute("COMMIT")
            let count = result.first?.first.flatMap { $0 }.flatMap { Int($0) } ?? 0
            identitiesInserted += count
            duplicates += records.count - count
        } catch let error as PostgresError where error.isDataProblem {
            try? await connection.execute("ROLLBACK")
            if records.count == 1 {
                try await storeFailed(records[0], error: error, on: connection)
                return
            }
            let middle = records.count / 2
            try await loadIdentities(Array(records[..<middle]), on: connection)
            try await loadIdentities(Array(records[middle...]), on: connection)
        } catch {
            try? await connection.execute("ROLLBACK")
            throw error
        }
    }

    /// COPY buffers kept between batches, one per concurrent write: allocating and freeing ~2 MB
    /// per batch showed up as malloc consolidation in profiles.
    private var spareRows: [[UInt8]] = []
    /// Where each row's text fields are, for the rollups (kept between batches likewise).
    private var spareEncoded: [[RollupBatch.Row]] = []

    /// Month ranges whose partitions exist (checked once per connection).
    private var ensuredMonths = Set<String>()

    /// Whether to try the direct COPY first; turned off after repeated conflicts (a re-run).
    private var optimisticCopy = true
    private var optimisticMisses = 0

    /// Actors known to be in `tally.daily_actor_sets` for their day and feature: sending them
    /// again would only repeat them (counts use DISTINCT), so batches leave them out. Filled only
    /// after a commit; emptied at 16,384 keys (under 2 MB), to stay within the memory bound.
    private var knownActors = ActorSet(capacity: knownActorLimit)
    /// How many stored actors a sink remembers at most.
    package static let knownActorLimit = 16_384

    private func rememberActors(_ actors: RollupBatch.NewActors) {
        if knownActors.count + actors.count > Self.knownActorLimit { knownActors.removeAll() }
        knownActors.formUnion(actors.set, entries: actors.entries)
    }

    static let rollupStatementName = "tally_rollups"

    /// Rollup rows and per-day actors from binary array parameters (``RollupBatch``); prepared once
    /// per connection. The actors come as one flat array ($11) and, per (day, feature), the bounds
    /// of its slice ($9, $10): a row per group with no unnest and regrouping on the server.
    static let rollupStatement = """
        WITH rollup AS (
            INSERT INTO tally.rollup_hourly AS r (hour, feature, name, events, first_seen, last_seen)
            SELECT * FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::bigint[], $5::timestamptz[], $6::timestamptz[])
            ON CONFLICT (hour, feature, name) DO UPDATE SET events = r.events + excluded.events,
                first_seen = least(r.first_seen, excluded.first_seen), last_seen = greatest(r.last_seen, excluded.last_seen)
            RETURNING 1
        )
        INSERT INTO tally.daily_actor_sets (day, feature, actors)
        SELECT g.day, g.feature, ($11::text[])[g.first:g.last]
        FROM unnest($7::date[], $8::text[], $9::int[], $10::int[]) AS g(day, feature, first, last)
        """

    // RETURNING only the key, then the rest from the staging rows: the writer role needs SELECT on
    // nothing but (event_id, occurred_at) of tally.events. (The staging table spells out its columns
    // for the same reason: `LIKE tally.events` would need SELECT on the whole table.)
    static let insertStatement = """
        WITH keys AS (
            INSERT INTO tally.events (\(CopyBinaryEncoder.columns))
            SELECT \(CopyBinaryEncoder.columns) FROM tally_staging
            ON CONFLICT DO NOTHING
            RETURNING event_id, occurred_at
        ), inserted AS (
            SELECT s.occurred_at, s.feature, s.name, coalesce(s.user_id, s.anonymous_id) AS actor
            FROM tally_staging s JOIN keys k ON k.event_id = s.event_id AND k.occurred_at = s.occurred_at
        ), rollup AS (
            INSERT INTO tally.rollup_hourly AS r (hour, feature, name, events, first_seen, last_seen)
            SELECT date_trunc('hour', occurred_at, 'UTC'), feature, name, count(*), min(occurred_at), max(occurred_at)
            FROM inserted GROUP BY 1, 2, 3
            ON CONFLICT (hour, feature, name) DO UPDATE SET events = r.events + excluded.events,
                first_seen = least(r.first_seen, excluded.first_seen), last_seen = greatest(r.last_seen, excluded.last_seen)
            RETURNING 1
        ), actors AS (
            INSERT INTO tally.daily_actor_sets (day, feature, actors)
            SELECT (occurred_at AT TIME ZONE 'UTC')::date, feature, array_agg(DISTINCT actor) FROM inserted
            WHERE actor IS NOT NULL GROUP BY 1, 2
            RETURNING 1
        )
        SELECT (SELECT count(*) FROM keys), (SELECT count(*) FROM rollup), (SELECT count(*) FROM actors)
        """

    static let insertOnlyStatement = """
        WITH keys AS (
            INSERT INTO tally.events (\(CopyBinaryEncoder.columns))
            SELECT \(CopyBinaryEncoder.columns) FROM tally_staging
            ON CONFLICT DO NOTHING
            RETURNING 1
        )
        SELECT count(*) FROM keys
        """

    private func storeFailed(_ event: EventEnvelope, error: PostgresError, on connection: PostgresConnection)
        async throws
    {
        failed += 1
        logger.warning(
            "event refused by PostgreSQL, kept in tally.failed_events",
            metadata: ["tally.event_id": "\(event.eventID)", "tally.sqlstate": "\(error.sqlState ?? "")"]
        )
        try await connection.query(
            "INSERT INTO tally.failed_events (event_id, reason, detail, event) VALUES ($1::uuid, $2, $3, $4)",
            [
                event.eventID.description, "postgres_" + (error.sqlState ?? "error"), error.message,
                String(decoding: event.ndjsonLine.dropLast(), as: UTF8.self),
            ]
        )
    }
}
