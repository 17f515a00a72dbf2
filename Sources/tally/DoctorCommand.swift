import ArgumentParser
import TallyPostgres

/// `tally doctor`.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the PostgreSQL store: connection, migrations, roles, partitions; with advice.",
        discussion: """
            Exits 0 when every check passes, 1 otherwise (each failed check says what to do), 69 when the \
            database cannot be reached or refuses the connection.

            Examples:
              tally doctor --database-url postgresql://tally_owner@db.internal/analytics
            """
    )

    @OptionGroup var database: DatabaseOption

    @Option(name: .long, help: "The migrations directory (default: $TALLY_SQL_DIR, else ./sql).")
    var migrations: String = Migrator.defaultDirectory

    func run() async throws {
        var problems = 0
        func report(_ ok: Bool, _ check: String, advice: String = "") {
            Terminal.print((ok ? "ok    " : "FAIL  ") + check + (ok || advice.isEmpty ? "" : "\n      → " + advice))
            if !ok { problems += 1 }
        }
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(database.conninfo)
        } catch let error as PostgresError {
            report(
                false,
                "connect: \(error.message)",
                advice: "check --database-url / DATABASE_URL / PG* variables, the server, pg_hba.conf and sslmode"
            )
            // The same code as every other command for a database that is down or refuses us.
            throw error.isConnectionProblem ? ExitCode.unavailable : ExitCode.ioError
        }
        let version = try await connection.query("SHOW server_version")
        report(true, "connected: PostgreSQL \(version.first?.first.flatMap { $0 } ?? "?")")

        let migrator = Migrator(directory: migrations)
        do {
            let files = try migrator.migrations()
            let applied = try await migrator.appliedChecksums(connection)
            let missing = files.filter { applied[$0.version] == nil }.map(\.file)
            let edited = files.filter { file in applied[file.version].map { $0 != file.checksum } ?? false }.map(\.file)
            report(
                missing.isEmpty,
                "migrations: \(files.count - missing.count) of \(files.count) applied",
                advice: "run `tally migrate` (missing: \(missing.joined(separator: ", ")))"
            )
            if !edited.isEmpty {
                report(
                    false,
                    "migrations edited after they were applied: \(edited.joined(separator: ", "))",
                    advice: "restore the files and add a new migration instead"
                )
            }
        } catch let error as PostgresError {
            report(false, "migrations: \(error.message)", advice: "pass --migrations DIR or set TALLY_SQL_DIR")
        }
        let roles = try await connection.query(
            "SELECT rolname FROM pg_roles WHERE rolname IN ('tally_writer', 'tally_reader') ORDER BY 1"
        )
        report(
            roles.count == 2,
            "roles: \(roles.compactMap { $0.first ?? nil }.joined(separator: ", "))",
            advice: "run `tally migrate` as a role that may create roles"
        )
        let partitions = try await connection.query(
            """
            SELECT count(*), coalesce(max(c.relname), '') FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = to_regclass('tally.events')
            """
        )
        let partitionCount = Int(partitions.first?.first.flatMap { $0 } ?? "0") ?? 0
        let latest = partitions.first?[1].flatMap { $0.isEmpty ? nil : $0 }
        report(
            true,
            "partitions of tally.events: \(partitionCount) (monthly, created on demand"
                + (latest.map { "; latest \($0))" } ?? "; none yet: the first ingest creates them)")
        )
        let hasFailedEvents = try await connection.query("SELECT to_regclass('tally.failed_events') IS NOT NULL")
        if hasFailedEvents.first?.first == "t" {
            let failed = try await connection.query("SELECT count(*) FROM tally.failed_events")
            let failedCount = Int(failed.first?.first.flatMap { $0 } ?? "0") ?? 0
            report(
                failedCount == 0,
                "failed events: \(failedCount)",
                advice: "inspect tally.failed_events (reason, detail, event) and re-ingest the fixed lines"
            )
        }
        await connection.close()
        if problems > 0 { throw ExitCode.findings }
    }
}
