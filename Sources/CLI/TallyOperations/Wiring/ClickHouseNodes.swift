import ArgumentParser
import Foundation
import Logging
import TallyClickHouse
import TallyReports
import TallyServer

/// `--clickhouse-url URL[,URL…]`, else `$TALLY_CLICKHOUSE_URL`: the ClickHouse nodes a command
/// writes to or reads from (the first that answers; credentials in the URL travel in headers).
struct ClickHouseOption: ParsableArguments {
    @Option(
        name: .long,
        help: "ClickHouse nodes' HTTP URLs, comma-separated (default: $TALLY_CLICKHOUSE_URL)."
    )
    var clickhouseURL: String?

    @Option(
        name: .long,
        help: "With replicated tables: replicas that must have written a batch before it counts as stored."
    )
    var clickhouseInsertQuorum: Int?

    /// The URLs given, or nil when neither the option nor the variable is set.
    var urls: String? {
        if let clickhouseURL { return clickhouseURL }
        if let url = ProcessInfo.processInfo.environment["TALLY_CLICKHOUSE_URL"], !url.isEmpty { return url }
        return nil
    }

    /// A client for the nodes; a usage error without any.
    func client() throws -> ClickHouseClient {
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
    func checkReadyForEvents() async throws {
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
    init(clickhouse error: ClickHouseError, doing: String) {
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

extension ClickHouseOption {
    /// `tally summary` on ClickHouse; names the node read in `store`.
    func summarize(_ query: SummaryQuery, store: inout SummaryStore) async throws -> Summary {
        let client = try client()
        do {
            let version = try await client.text("SELECT version()").trimmingCharacters(in: .whitespacesAndNewlines)
            store.location = "\(client.endpoints[0]) (ClickHouse \(version))"
            return try await ClickHouseSummarizer(client: client).summarize(query)
        } catch let error as ClickHouseError {
            throw CommandFailure(clickhouse: error, doing: "cannot read ClickHouse")
        }
    }

    /// A report on ClickHouse; names the node read in `store`.
    func run(_ report: Report, store: inout SummaryStore) async throws -> (ReportScope, ReportResult) {
        let client = try client()
        do {
            let version = try await client.text("SELECT version()").trimmingCharacters(in: .whitespacesAndNewlines)
            store.location = "\(client.endpoints[0]) (ClickHouse \(version))"
            let source = ClickHouseReportSource(client: client)
            let answer = try await ReportRunner.run(report, on: source)
            ReportOutputOptions.noteMissing(report, seen: source.names.withLock { $0 })
            return answer
        } catch let error as ReportError {
            throw CommandFailure(.usage, ReportOptions.message(error))
        } catch let error as ClickHouseError {
            throw CommandFailure(clickhouse: error, doing: "cannot read ClickHouse")
        }
    }
}

extension ClickHouseOption {
    /// The sink of `tally ingest` and `tally serve --sink clickhouse`.
    func sink(maxConcurrentWrites: Int = 2, logger: Logger) throws -> ClickHouseSink {
        guard let urls else { throw CommandFailure(.usage, "--sink clickhouse needs --clickhouse-url") }
        do {
            return try ClickHouseSink(
                urls: urls,
                maxConcurrentWrites: maxConcurrentWrites,
                insertQuorum: clickhouseInsertQuorum,
                logger: logger
            )
        } catch let error as ClickHouseError {
            throw CommandFailure(.usage, error.message)
        }
    }

    /// Where `tally serve --sink clickhouse` keeps the events it rejects: `tally.failed_events`.
    func rejectSink() throws -> ClickHouseRejectSink {
        ClickHouseRejectSink(client: try client())
    }
}

extension ClickHouseOption {
    /// `tally migrate --clickhouse`: every node given, in turn.
    func migrate() async throws {
        do {
            for outcome in try await ClickHouseMigrator(client: try client()).migrate() {
                let what =
                    outcome.applied.isEmpty
                    ? "up to date" : "applied " + outcome.applied.map { String($0) }.joined(separator: ", ")
                Terminal.print("\(outcome.node) (ClickHouse \(outcome.serverVersion)): \(what)")
            }
        } catch let error as ClickHouseError {
            throw CommandFailure(clickhouse: error, doing: "cannot migrate ClickHouse")
        }
    }
}
