package import Logging
import TallyCore
import TallyFileStore
package import TallyPipeline
package import TallyPostgres
import TallyServer

/// Where `tally ingest`, `tally serve` and `tally replay` write events (their `--store`): each
/// store's sink, checked ready before anything is read or served.
package struct EventStores: Sendable {
    /// The stores, as `--store` names them (the same words as the reading commands' `--store`).
    package enum Kind: String, Sendable, CaseIterable {
        /// The file store under the data directory.
        case file
        /// PostgreSQL (`--database-url`).
        case postgres
        /// ClickHouse (`--clickhouse-url`).
        case clickhouse
        /// Standard output, as NDJSON (`tally ingest` only).
        case stdout
    }

    /// The file store's directory, where dead letters go whatever the store.
    package var dataDirectory: String
    /// PostgreSQL's conninfo; nil for libpq's `PG*` variables.
    package var conninfo: String?
    /// The ClickHouse nodes.
    package var clickhouse: ClickHouseNodes
    package var logger: Logger

    package init(
        dataDirectory: String,
        conninfo: String?,
        clickhouse: ClickHouseNodes,
        logger: Logger = Logger(label: "tally")
    ) {
        self.dataDirectory = dataDirectory
        self.conninfo = conninfo
        self.clickhouse = clickhouse
        self.logger = logger
    }

    /// The sinks of `tally ingest`, one per store in `kinds`, each checked ready (ClickHouse, then
    /// PostgreSQL); PostgreSQL's also on its own, for its counts. `maintainRollups`,
    /// `maintainUserSets` and `maintainNameSets` are for benchmarks.
    package func ingestSinks(
        _ kinds: [Kind],
        maintainRollups: Bool = true,
        maintainUserSets: Bool = true,
        maintainNameSets: Bool = true
    ) async throws -> (sinks: [any EventSink], postgres: PostgresSink?) {
        var sinks: [any EventSink] = []
        var postgres: PostgresSink?
        for kind in kinds {
            switch kind {
            case .file: sinks.append(FileSink(directory: dataDirectory, logger: logger))
            case .stdout: sinks.append(StdoutSink(format: .ndjson))
            case .postgres:
                let sink = PostgresSink(
                    conninfo: conninfo,
                    maintainRollups: maintainRollups,
                    maintainUserSets: maintainUserSets,
                    maintainNameSets: maintainNameSets,
                    logger: logger
                )
                postgres = sink
                sinks.append(sink)
            case .clickhouse:
                sinks.append(try clickhouse.sink(logger: logger))
            }
        }
        if kinds.contains(.clickhouse) { try await clickhouse.checkReadyForEvents() }
        if kinds.contains(.postgres) { try await PostgresReadiness.checkReadyForEvents(conninfo: conninfo) }
        return (sinks, postgres)
    }

    /// The sink of `tally serve` and where it keeps the events it rejects, the store checked ready
    /// (the file store's directory made and writable: 73 otherwise). `connections`: PostgreSQL's and
    /// ClickHouse's writes at once.
    package func collectorSinks(
        _ kind: Kind,
        connections: Int
    ) async throws -> (events: any EventSink, rejects: any RejectSink) {
        switch kind {
        case .file:
            do {
                try Directory.create(dataDirectory)
                try Directory.checkWritable(dataDirectory)
            } catch {
                throw CommandFailure(
                    .cannotCreate,
                    "cannot write to \(dataDirectory) (\(error)); choose another --data-dir"
                )
            }
            return (FileSink(directory: dataDirectory, logger: logger), FileRejectSink(directory: dataDirectory))
        case .postgres:
            try await PostgresReadiness.checkReadyForEvents(conninfo: conninfo)
            // Four rounds at once: a round waits mostly on the server, and with two the collector
            // left a third of the machine idle (scripts/bench.sh --part collector: 2 → 4 gave +6 to 13 %).
            return (
                PostgresSink(conninfo: conninfo, maxConcurrentWrites: connections, logger: logger),
                PostgresRejectSink(conninfo: conninfo)
            )
        case .clickhouse:
            try await clickhouse.checkReadyForEvents()
            return (try clickhouse.sink(maxConcurrentWrites: connections, logger: logger), try clickhouse.rejectSink())
        case .stdout:
            throw CommandFailure(.usage, "tally serve stores events in file, postgres or clickhouse, not stdout")
        }
    }

    /// The sink of `tally replay`, checked ready unless `dryRun` (nothing is written then).
    package func replaySink(_ kind: Kind, dryRun: Bool) async throws -> any EventSink {
        switch kind {
        case .file:
            return FileSink(directory: dataDirectory)
        case .postgres:
            if !dryRun { try await PostgresReadiness.checkReadyForEvents(conninfo: conninfo) }
            return PostgresSink(conninfo: conninfo, maxConcurrentWrites: 1)
        case .clickhouse, .stdout:
            throw CommandFailure(.usage, "tally replay stores events in file or postgres, not \(kind.rawValue)")
        }
    }
}
