import ArgumentParser
import Foundation
import TallyOperations
import TallyReports

/// `tally doctor`.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check a store (PostgreSQL, ClickHouse or the file store) for what needs an operator; with advice.",
        discussion: """
            PostgreSQL: the connection, the migrations (the ones built into this binary, or --migrations DIR), \
            the roles, the partitions, and the events it refused (tally.failed_events). The file store: the \
            directory and its permissions, free disk space, the day files (torn last lines, days in the future, \
            files it does not read), dead letters and rejects. ClickHouse (--store clickhouse, every node in \
            --clickhouse-url): each node and its version, its migrations, the partitions with the most parts; the \
            cluster `tally` and every shard through the Distributed tables; tally.failed_events.

            A check fails only when the store cannot take or serve events as it should (no connection, \
            migrations missing or edited, roles missing, no store, a read-only directory, a full disk, a node or \
            shard that does not answer); refused events, torn lines, low disk space and crowded parts are \
            warnings, with counts and the newest reason. Which store: as `tally summary` chooses (--store, --data-dir, --database-url, DATABASE_URL, else ./tally-data).

            Exit codes: 0 no check failed (warnings allowed, unless --strict); 1 a check failed (or, with \
            --strict, warned); 64 usage error; 69 the database could not be reached or refused the connection.

            Examples:
              tally doctor --database-url postgresql://tally_owner@db.internal/analytics
              tally doctor --data-dir /var/lib/tally --format json     # for monitoring
              tally doctor --strict                                     # warnings fail too
              tally doctor --store clickhouse --clickhouse-url http://ch1:8123,http://ch2:8123
            """
    )

    @Option(
        name: .long,
        help: "The store to check: file, postgres or clickhouse (default: as `tally summary` chooses)."
    )
    var store: SummaryStore.Kind?

    @OptionGroup var dataDirectory: DataDirectoryOption

    @OptionGroup var database: DatabaseOption

    @OptionGroup var clickhouse: ClickHouseOption

    @Option(
        name: .long,
        help: "A directory of migrations to compare with instead of the built-in ones (default: $TALLY_SQL_DIR if set)."
    )
    var migrations: String?

    @Option(name: .long, help: "text, or json for monitoring.")
    var format: DoctorFormat = .text

    @Flag(name: .long, help: "Exit 1 on warnings too.")
    var strict = false

    func validate() throws {
        _ = try SummaryStore.chosen(store, dataDirectory: dataDirectory, database: database)
    }

    func run() async throws {
        let chosen = try SummaryStore.chosen(store, dataDirectory: dataDirectory, database: database)
        let (report, exit) = try await DoctorRun.check(chosen, migrations: migrations, clickhouse: clickhouse.nodes)
        emit(report)
        // The same code as every other command for a database that is down or refuses us.
        if let exit { throw ExitCode(exit) }
        if report.status == .failure || (strict && report.status == .warning) { throw ExitCode.findings }
    }

    private func emit(_ report: DoctorReport) {
        FileHandle.standardOutput.write(Data((format == .json ? report.renderJSON() : report.renderText()).utf8))
    }
}

/// `tally doctor --format`.
enum DoctorFormat: String, ExpressibleByArgument, CaseIterable {
    case text
    case json
}
