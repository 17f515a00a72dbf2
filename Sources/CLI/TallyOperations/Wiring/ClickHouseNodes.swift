import Foundation
package import Logging
package import TallyClickHouse
package import TallyReports
import TallyServer

/// The ClickHouse nodes a command writes to or reads from (`--clickhouse-url URL[,URL…]`, else
/// `$TALLY_CLICKHOUSE_URL`): the first that answers; credentials in a URL travel in headers.
package struct ClickHouseNodes: Sendable {
    /// The URLs given, comma-separated; nil when neither the option nor the variable is set.
    package var urls: String?
    /// With replicated tables: replicas that must have written a batch before it counts as stored.
    package var insertQuorum: Int?

    package init(urls: String?, insertQuorum: Int? = nil) {
        self.urls = urls
        self.insertQuorum = insertQuorum
    }

    /// A client for the nodes; a usage error without any.
    package func client() throws -> ClickHouseClient {
        guard let urls else {
            throw CommandFailure(.usage, "give --clickhouse-url (or set TALLY_CLICKHOUSE_URL)")
        }
        do {
            return try ClickHouseClient(urls: urls)
        } catch {
            throw CommandFailure(.usage, error.message)
        }
    }

    /// Fails fast, before anything is read or served, when ClickHouse cannot take events: 69 when
    /// no node answers, 74 when it has no tally tables.
    package func checkReadyForEvents() async throws {
        let client = try client()
        do {
            let exists = try await client.text("EXISTS TABLE tally.events")
            guard exists.trimmingCharacters(in: .whitespacesAndNewlines) == "1" else {
                throw CommandFailure(
                    .ioError,
                    "ClickHouse has no tally tables yet: run `tally migrate --clickhouse` first"
                )
            }
        } catch let error as ClickHouseError {
            throw CommandFailure(clickhouse: error, doing: "cannot use ClickHouse")
        }
    }
}

extension CommandFailure {
    /// A ClickHouse error as an exit status: 69 when no node answered, 65 for a migration that
    /// disagrees, 74 for a statement the server refused.
    package init(clickhouse error: ClickHouseError, doing: String) {
        if error.code == .connection {
            self.init(
                .unavailable,
                "cannot reach ClickHouse: \(error.message)\n  check --clickhouse-url and that the server is up"
            )
        } else if error.code == .migration {
            self.init(.dataError, error.message)
        } else if error.serverCode == 60 || error.serverCode == 81 {
            self.init(
                .ioError,
                "\(doing): \(error.message)\n  ClickHouse has no tally tables yet: run `tally migrate --clickhouse` first"
            )
        } else {
            self.init(.ioError, "\(doing): \(error.message)")
        }
    }
}

extension ClickHouseNodes {
    /// `tally summary` on ClickHouse (`exact`: from the raw events); names the node read in `store`.
    package func summarize(_ query: SummaryQuery, exact: Bool, store: inout SummaryStore) async throws -> Summary {
        let client = try client()
        do {
            let version = try await client.text("SELECT version()").trimmingCharacters(in: .whitespacesAndNewlines)
            store.location = "\(client.endpoints[0]) (ClickHouse \(version))"
            return try await ClickHouseSummarizer(client: client).summarize(query, exact: exact)
        } catch let error as ClickHouseError {
            throw CommandFailure(clickhouse: error, doing: "cannot read ClickHouse")
        }
    }

    /// A report on ClickHouse; names the node read in `store`.
    package func run(_ report: Report, store: inout SummaryStore) async throws -> (ReportScope, ReportResult) {
        let client = try client()
        do {
            let version = try await client.text("SELECT version()").trimmingCharacters(in: .whitespacesAndNewlines)
            store.location = "\(client.endpoints[0]) (ClickHouse \(version))"
            let source = ClickHouseReportSource(client: client)
            let answer = try await ReportRunner.run(report, on: source)
            ReportReading.noteMissing(report, seen: source.names.withLock { $0 })
            return answer
        } catch let error as ReportError {
            throw CommandFailure(.usage, ReportReading.message(error))
        } catch let error as ClickHouseError {
            throw CommandFailure(clickhouse: error, doing: "cannot read ClickHouse")
        }
    }
}

extension ClickHouseNodes {
    /// The sink of `tally ingest --store clickhouse` and `tally serve --store clickhouse`.
    package func sink(maxConcurrentWrites: Int = 2, logger: Logger) throws -> ClickHouseSink {
        guard let urls else { throw CommandFailure(.usage, "--store clickhouse needs --clickhouse-url") }
        do {
            return try ClickHouseSink(
                urls: urls,
                maxConcurrentWrites: maxConcurrentWrites,
                insertQuorum: insertQuorum,
                logger: logger
            )
        } catch let error as ClickHouseError {
            throw CommandFailure(.usage, error.message)
        }
    }

    /// Where `tally serve --store clickhouse` keeps the events it rejects: `tally.failed_events`.
    package func rejectSink() throws -> ClickHouseRejectSink {
        ClickHouseRejectSink(client: try client())
    }
}

extension ClickHouseNodes {
    /// `tally migrate --clickhouse`: every node given, in turn; a line for each.
    package func migrate() async throws -> [String] {
        do {
            return try await ClickHouseMigrator(client: try client()).migrate().map { outcome in
                let what =
                    outcome.applied.isEmpty
                    ? "up to date" : "applied " + outcome.applied.map { String($0) }.joined(separator: ", ")
                return "\(outcome.node) (ClickHouse \(outcome.serverVersion)): \(what)"
            }
        } catch let error as ClickHouseError {
            throw CommandFailure(clickhouse: error, doing: "cannot migrate ClickHouse")
        }
    }
}
