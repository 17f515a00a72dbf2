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
            try await load(batch, on: connection)
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
                anonymous_id text, session_id text, context jsonb, schema_version text, violations jsonb
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
        var unique: [EventEnvelope] = []
        unique.reserveCapacity(batch.count)
        rows.append(contentsOf: CopyBinaryEncoder.header)
        for event in batch where seen.insert(event.eventID).inserted {
            CopyBinaryEncoder.append(event, to: &rows)
            unique.append(event)
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
                var written: [DayFeature: Set<ExactString>] = [:]
                if maintainRollups { written = try await updateRollups(unique, on: connection) }
                try await connection.execute("COMMIT")
                rememberActors(written)
                return unique.count
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

    /// COPY buffers kept between batches, one per concurrent write: allocating and freeing ~2 MB
    /// per batch showed up as malloc consolidation in profiles.
    private var spareRows: [[UInt8]] = []

    /// Month ranges whose partitions exist (checked once per connection).
    private var ensuredMonths = Set<String>()

    /// Whether to try the direct COPY first; turned off after repeated conflicts (a re-run).
    private var optimisticCopy = true
    private var optimisticMisses = 0

    /// A PostgreSQL array literal of text elements: `{"a","b \\"c\\""}`.
    static func arrayLiteral(_ elements: [String]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(elements.count * 24)
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\""))
            for byte in element.utf8 {
                if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A (day, feature) of `tally.daily_actor_sets`.
    struct DayFeature: Hashable {
        var day: Int64
        var feature: ExactString
    }

    /// Actors known to be in `tally.daily_actor_sets` for each (day, feature): sending them again
    /// would only repeat them (counts use DISTINCT), so batches skip them. Ids compare byte-exactly: two ids that differ only in
    /// Unicode normalization are two users to PostgreSQL. Bounded; filled only after a commit.
    private var knownActors: [DayFeature: Set<ExactString>] = [:]
    private var knownActorCount = 0

    private func rememberActors(_ actors: [DayFeature: Set<ExactString>]) {
        let added = actors.values.reduce(0) { $0 + $1.count }
        if knownActorCount + added > 1_000_000 {
            knownActors.removeAll(keepingCapacity: true)
            knownActorCount = 0
        }
        for (key, ids) in actors { knownActors[key, default: []].formUnion(ids) }
        knownActorCount += added
    }

    /// Adds a batch whose every event was inserted to the hourly rollups and the per-day actors;
    /// returns the actor rows written, to remember once the transaction commits.
    private func updateRollups(
        _ events: [EventEnvelope],
        on connection: PostgresConnection
    ) async throws -> [DayFeature: Set<ExactString>] {
        // Per hour, the few (feature, name) pairs in a short array searched linearly: one Int64
        // hash per event instead of hashing two strings (this loop was 15 % of the client's CPU).
        struct Group {
            var feature: ExactString
            var name: ExactString
            var count: Int
            var first: Timestamp
            var last: Timestamp
        }
        var bucketOfHour: [Int64: Int] = [:]
        var buckets: [(hour: Int64, groups: [Group])] = []
        var currentHour = Int64.min
        var current = -1
        // Per (day, feature), the ids already known and the new ones: a batch spans a few days and
        // features, so the sets are found by a short linear search, not a hash per event.
        var actorSets: [(key: DayFeature, known: Set<ExactString>, new: Set<ExactString>)] = []
        var currentSet = -1
        for event in events {
            let time = event.occurredAt
            let seconds = time.secondsSinceEpoch
            let hour = seconds - ((seconds % 3_600) + 3_600) % 3_600
            if hour != currentHour {
                currentHour = hour
                if let index = bucketOfHour[hour] {
                    current = index
                } else {
                    current = buckets.count
                    bucketOfHour[hour] = current
                    buckets.append((hour, []))
                }
            }
            let feature = ExactString(event.feature ?? "")
            let name = ExactString(event.name)
            if let index = buckets[current].groups.firstIndex(where: { $0.name == name && $0.feature == feature }) {
                buckets[current].groups[index].count += 1
                if time < buckets[current].groups[index].first { buckets[current].groups[index].first = time }
                if buckets[current].groups[index].last < time { buckets[current].groups[index].last = time }
            } else {
                buckets[current].groups.append(Group(feature: feature, name: name, count: 1, first: time, last: time))
            }
            if maintainUserSets, let actor = event.actorID {
                let key = DayFeature(day: hour / 86_400 - (hour < 0 && hour % 86_400 != 0 ? 1 : 0), feature: feature)
                if currentSet < 0 || actorSets[currentSet].key != key {
                    if let index = actorSets.firstIndex(where: { $0.key == key }) {
                        currentSet = index
                    } else {
                        currentSet = actorSets.count
                        actorSets.append((key, knownActors[key] ?? [], []))
                    }
                }
                let id = ExactString(actor)
                if !actorSets[currentSet].known.contains(id) { actorSets[currentSet].new.insert(id) }
            }
        }
        // Two small INSERTs from array parameters in one round trip: no temporary tables to
        // truncate at every commit (which cost more than the inserts themselves).
        var columns: [[String]] = Array(repeating: [], count: 9)
        // Rollup rows in key order: concurrent loads then lock them in the same order, so they
        // wait for each other briefly instead of deadlocking (the user sets are plain inserts).
        for bucket in buckets.sorted(by: { $0.hour < $1.hour }) {
            let hour = Timestamp(secondsSinceEpoch: bucket.hour).rfc3339
            for group in bucket.groups.sorted(by: { ($0.feature, $0.name) < ($1.feature, $1.name) }) {
                columns[0].append(hour)
                columns[1].append(group.feature.string)
                columns[2].append(group.name.string)
                columns[3].append(String(group.count))
                columns[4].append(group.first.rfc3339)
                columns[5].append(group.last.rfc3339)
            }
        }
        var written: [DayFeature: Set<ExactString>] = [:]
        for set in actorSets.sorted(by: { ($0.key.day, $0.key.feature) < ($1.key.day, $1.key.feature) })
        where !set.new.isEmpty {
            let day = CivilDate(daysSinceEpoch: set.key.day).isoString
            for id in set.new.sorted() {
                columns[6].append(day)
                columns[7].append(set.key.feature.string)
                columns[8].append(id.string)
            }
            written[set.key] = set.new
        }
        try await connection.queryPrepared(Self.rollupStatementName, columns.map { Self.arrayLiteral($0) })
        return written
    }

    static let rollupStatementName = "tally_rollups"

    /// Rollup and actor rows from array parameters; prepared once per connection.
    static let rollupStatement = """
        WITH rollup AS (
            INSERT INTO tally.rollup_hourly AS r (hour, feature, name, events, first_seen, last_seen)
            SELECT * FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::bigint[], $5::timestamptz[], $6::timestamptz[])
            ON CONFLICT (hour, feature, name) DO UPDATE SET events = r.events + excluded.events,
                first_seen = least(r.first_seen, excluded.first_seen), last_seen = greatest(r.last_seen, excluded.last_seen)
            RETURNING 1
        )
        INSERT INTO tally.daily_actor_sets (day, feature, actors)
        SELECT day, feature, array_agg(actor) FROM unnest($7::date[], $8::text[], $9::text[]) AS a(day, feature, actor)
        GROUP BY day, feature
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
