public import Logging
public import TallyCore
public import TallyPipeline

/// Loads batches into PostgreSQL: COPY into a temporary staging table, then, in the same
/// transaction, `INSERT … ON CONFLICT DO NOTHING` into `tally.events` and rollup upkeep from the
/// rows actually inserted, so counts stay exact under retries and re-runs.
///
/// A batch the server refuses for a data reason (SQLSTATE class 22/23, e.g. a NUL byte) is split
/// in halves until the offending events are alone; those go to `tally.failed_events` and the rest
/// load. A lost connection is reopened on the next write; the pipeline retries the batch. Errors
/// say whether a retry can help (``PostgresError/errorClass``): a refused permission is not retried.
///
/// Each write takes a loader of its own (a connection and its caches) from the idle ones, so
/// concurrent writes share nothing; the actor only guards the idle list, which no `await`
/// interrupts. Cancelling a write cancels its statement on the server.
public actor PostgresSink: EventSink {
    /// `postgres`: how logs and dead letters name this sink.
    public nonisolated let name = "postgres"
    let conninfo: String?
    private let logger: Logger
    /// Idle loaders; one per concurrent write (``maxConcurrentWrites``), opened on demand.
    private var idle: [PostgresLoader] = []
    private nonisolated let totals = Locked(LoadCounts())
    /// Rows inserted into `tally.events`.
    public var inserted: Int { totals.withLock { $0.inserted } }
    /// Rows skipped because their `event_id` was already stored.
    public var duplicates: Int { totals.withLock { $0.duplicates } }
    /// identify / group / alias records inserted into `tally.identities`.
    public var identitiesInserted: Int { totals.withLock { $0.identitiesInserted } }
    /// Events refused by the server and kept in `tally.failed_events`.
    public var failed: Int { totals.withLock { $0.failed } }

    private let maintainRollups: Bool
    private let maintainUserSets: Bool
    private let maintainNameSets: Bool

    /// How many stored actors a loader remembers at most.
    package static let knownActorLimit = 16_384

    /// A sink for the database at `conninfo` (URL or conninfo; nil: libpq's `PG*` variables),
    /// loading up to `maxConcurrentWrites` batches at once (see ``maxConcurrentWrites``).
    /// `maintainRollups: false`, `maintainUserSets: false` and `maintainNameSets: false` only exist
    /// to measure what their upkeep costs: summaries (or their user counts, or retention) are then
    /// wrong.
    public init(
        conninfo: String?,
        maxConcurrentWrites: Int = 2,
        maintainRollups: Bool = true,
        maintainUserSets: Bool = true,
        maintainNameSets: Bool = true,
        logger: Logger = Logger(label: "tally.postgres")
    ) {
        self.conninfo = conninfo
        self.maxConcurrentWrites = max(1, maxConcurrentWrites)
        self.maintainRollups = maintainRollups
        self.maintainUserSets = maintainUserSets
        self.maintainNameSets = maintainNameSets
        self.logger = logger
    }

    /// Batches loading at once, each on its own connection; two by default: while the server
    /// inserts one, the client encodes the next (measured: 1.5× the throughput of one connection
    /// on a 2-core machine, for `tally ingest`'s 5,000-event batches). The collector's rounds are
    /// smaller and wait on each other's latency, so it runs more (see `tally serve`).
    public nonisolated let maxConcurrentWrites: Int

    /// Loads `batch` in one transaction; events already stored are skipped, rows the server refuses
    /// go to `tally.failed_events`.
    /// - Throws: ``PostgresError``, whose ``PostgresError/errorClass`` tells the pipeline whether to
    ///   retry; `CancellationError` when the pipeline cancelled the write (past its deadline).
    public func write(_ batch: [EventEnvelope]) async throws {
        let loader = try await acquire()
        do {
            try await loader.write(batch)
        } catch let error as PostgresError where error.isConnectionProblem {
            await loader.connection.close()
            throw error
        } catch {
            await release(loader)
            throw error
        }
        await release(loader)
    }

    /// Loads events replayed from `tally.failed_events` (`rows[i]`: the row of `batch[i]`), deleting
    /// their rows in the transactions that store them (see ``FailedEventsReplayer``).
    package func replay(_ batch: [EventEnvelope], rows: [Int64]) async throws {
        let loader = try await acquire()
        do {
            try await loader.replay(batch, rows: rows)
        } catch let error as PostgresError where error.isConnectionProblem {
            await loader.connection.close()
            throw error
        } catch {
            await release(loader)
            throw error
        }
        await release(loader)
    }

    /// Closes the idle connections; the pipeline calls it once every write has returned.
    public func shutdown() async throws {
        let loaders = idle
        idle = []
        for loader in loaders { await loader.connection.close() }
    }

    /// An idle loader, or a new one: the pipeline never runs more writes than
    /// ``maxConcurrentWrites``, so at most that many exist.
    private func acquire() async throws -> PostgresLoader {
        if let loader = idle.popLast() { return loader }
        return try await PostgresLoader.connect(
            conninfo,
            totals: totals,
            maintainRollups: maintainRollups,
            maintainUserSets: maintainUserSets,
            maintainNameSets: maintainNameSets,
            logger: logger
        )
    }

    /// Back to the idle list, unless its connection is broken or still in a transaction (a
    /// statement cancelled where no rollback could follow): then it is closed, and the next write
    /// opens a new one.
    private func release(_ loader: PostgresLoader) async {
        if loader.connection.isReusable {
            idle.append(loader)
        } else {
            await loader.connection.close()
        }
    }
}
