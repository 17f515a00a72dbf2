public import Logging
public import TallyCore
public import TallyPipeline

/// Loads batches into ClickHouse: one RowBinary `INSERT` into the `Distributed` table
/// `tally.events` (and one into `tally.identities` when the batch has identity records), sent
/// with `insert_distributed_sync = 1`, so that a write returns only once every shard concerned
/// stored its rows; with `insertQuorum`, only once that many replicas of each did.
///
/// Exactly once under re-sends: a batch sent again (a retry, a client's re-send through another
/// collector) is inserted again, and the copies are identical rows under one `event_id` on the
/// shard of their actor. `ReplacingMergeTree` removes them when it merges; until then every
/// query reads each `event_id` once (docs/scale-out.md says how). So inserts are idempotent and
/// order-free, and several run at once.
///
/// A batch the server refuses for a data reason (a value that does not fit a column) is split in
/// halves until the offending events are alone; they go to `tally.failed_events` with the
/// server's reason, the rest load, on the first attempt. A batch refused for any other permanent
/// reason (a shard whose table differs, an unknown column) goes to `tally.failed_events` whole,
/// also on the first attempt, and the write succeeds: the dead letter is durable, so the
/// collector acknowledges. When `tally.failed_events` refuses too (a refused login, no tables),
/// the error goes to the pipeline, which dead-letters the batch elsewhere or answers 503. A lost
/// connection or a shard that is down is transient and retried (``ClickHouseError/errorClass``).
public actor ClickHouseSink: EventSink {
    /// `clickhouse`: how logs and dead letters name this sink.
    public nonisolated let name = "clickhouse"
    private let client: ClickHouseClient
    private let settings: [(String, String)]
    private let logger: Logger
    private nonisolated let totals = Locked(Totals())

    private struct Totals {
        var sent = 0
        var identitiesSent = 0
        var failed = 0
    }

    /// Events sent and acknowledged (copies included: the store keeps each once).
    public var sent: Int { totals.withLock { $0.sent } }
    /// identify / group / alias records sent and acknowledged.
    public var identitiesSent: Int { totals.withLock { $0.identitiesSent } }
    /// Events refused by the server and kept in `tally.failed_events`.
    public var failed: Int { totals.withLock { $0.failed } }

    /// Batches written at once.
    public nonisolated let maxConcurrentWrites: Int

    /// A sink for the nodes at `urls` (comma-separated `http://user:password@host:8123`); writes
    /// go to the first that answers. `insertQuorum` (replicated tables only): how many replicas
    /// must have written a batch before it counts as stored.
    /// - Throws: ``ClickHouseError`` for a URL that cannot be parsed.
    public init(
        urls: String,
        maxConcurrentWrites: Int = 2,
        insertQuorum: Int? = nil,
        timeout: Duration = .seconds(30),
        logger: Logger = Logger(label: "tally.clickhouse")
    ) throws {
        client = try ClickHouseClient(urls: urls, timeout: timeout)
        var settings = [("insert_distributed_sync", "1")]
        if let insertQuorum, insertQuorum > 1 { settings.append(("insert_quorum", "\(insertQuorum)")) }
        self.settings = settings
        self.maxConcurrentWrites = max(1, maxConcurrentWrites)
        self.logger = logger
    }

    /// Inserts `batch`; rows the server refuses for a data reason go to `tally.failed_events`.
    /// - Throws: ``ClickHouseError``, whose ``ClickHouseError/errorClass`` tells the pipeline
    ///   whether to retry; `CancellationError` when the pipeline cancelled the write.
    public func write(_ batch: [EventEnvelope]) async throws {
        var seen = Set<EventID>()
        var unique = batch.filter { seen.insert($0.eventID).inserted }
        if unique.contains(where: { $0.deviceOccurredAt != nil }) { try await placeFromEarlierCopies(&unique) }
        let events = unique.filter { !$0.kind.isIdentity }
        let identities = unique.filter(\.kind.isIdentity)
        try await load(events, identity: false)
        try await load(identities, identity: true)
    }

    private nonisolated func load(_ rows: [EventEnvelope], identity: Bool) async throws {
        guard !rows.isEmpty else { return }
        var writer = RowBinaryWriter(capacity: rows.count * 300)
        for row in rows {
            if identity {
                ClickHouseRowEncoder.appendIdentity(row, to: &writer)
            } else {
                ClickHouseRowEncoder.appendEvent(row, to: &writer)
            }
        }
        do {
            try await client.insert(
                identity ? ClickHouseRowEncoder.identityInsert : ClickHouseRowEncoder.eventInsert,
                data: writer.bytes,
                settings: settings
            )
            totals.withLock {
                if identity { $0.identitiesSent += rows.count } else { $0.sent += rows.count }
            }
        } catch let error as ClickHouseError where error.isDataProblem {
            guard rows.count > 1 else { return try await storeFailed(rows, error: error) }
            let middle = rows.count / 2
            try await load(Array(rows[..<middle]), identity: identity)
            try await load(Array(rows[middle...]), identity: identity)
        } catch let error as ClickHouseError where error.code == .server && error.isPermanent {
            // Refused whatever the rows (a shard whose table differs, a statement the server cannot
            // run): every retry and every half would meet it again, so the whole batch is kept now.
            try await storeFailed(rows, error: error)
        }
    }

    /// Keeps `events` in `tally.failed_events` with the server's reason, in one insert; when even
    /// that fails, the first error goes on (the pipeline dead-letters the batch, the collector
    /// answers 503): nothing counts as stored that is not.
    private nonisolated func storeFailed(_ events: [EventEnvelope], error: ClickHouseError) async throws {
        let failedAt = Timestamp.now()
        let rejects = events.map { event in
            Reject(
                content: .event(event),
                reason: Reject.Reason(
                    code: "clickhouse_\(error.serverCode ?? 0)",
                    message: error.serverMessage ?? error.message
                ),
                origin: .sink(name: name, attempts: 1),
                failedAt: failedAt
            )
        }
        do {
            try await ClickHouseRejectSink(client: client, settings: settings).store(rejects)
        } catch let failure {
            logger.error("cannot keep refused events in tally.failed_events", metadata: ["error": "\(failure)"])
            throw error
        }
        totals.withLock { $0.failed += events.count }
        logger.warning(
            "events refused by ClickHouse, kept in tally.failed_events",
            metadata: [
                "tally.events": "\(events.count)", "tally.event_id": "\(events[0].eventID)", "error": "\(error)",
            ]
        )
    }

    /// Events from the future (``TallyCore/EventEnvelope/deviceOccurredAt``) take the time the
    /// store gave an earlier copy (the earliest, when collectors raced), so a re-send placed at a
    /// later receipt keeps the copies identical.
    private nonisolated func placeFromEarlierCopies(_ batch: inout [EventEnvelope]) async throws {
        let placed = batch.indices.filter { batch[$0].deviceOccurredAt != nil }
        let ids = placed.map { "toUUID('\(batch[$0].eventID)')" }.joined(separator: ", ")
        let rows = try await client.rows(
            "SELECT toString(event_id), min(occurred_at) FROM tally.events WHERE event_id IN (\(ids)) GROUP BY event_id"
        )
        var first: [String: Int64] = [:]
        for row in rows where row.count == 2 { first[row[0]] = Int64(row[1]) }
        for index in placed {
            if let micros = first[batch[index].eventID.description],
                micros < RowBinaryWriter.micros(batch[index].occurredAt)
            {
                batch[index].occurredAt = Timestamp(nanosecondsSinceEpoch: micros * 1_000)
            }
        }
    }

    /// Whether a node answers.
    public func isReachable() async -> Bool {
        await client.ping()
    }
}
