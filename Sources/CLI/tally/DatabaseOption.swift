import ArgumentParser
import Foundation
import TallyPostgres

/// `--database-url URL`, else `$DATABASE_URL`, else libpq's own `PG*` variables.
struct DatabaseOption: ParsableArguments {
    @Option(
        name: .long,
        help: "PostgreSQL URL or conninfo (default: $DATABASE_URL, else libpq's PGHOST, PGUSER, … and sslmode)."
    )
    var databaseURL: String?

    /// The conninfo to connect with; nil means libpq's environment.
    var conninfo: String? {
        if let databaseURL { return databaseURL }
        if let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty { return url }
        return nil
    }

    /// Fails fast, before anything is read or served, when the database cannot take events: 69 when it
    /// cannot be reached or refuses the connection, 74 when it has no tally tables.
    func checkReadyForEvents() async throws {
        do {
            let connection = try await PostgresConnection.connect(conninfo)
            let ready = try await connection.query("SELECT to_regclass('tally.events') IS NOT NULL")
            await connection.close()
            guard ready.first?.first == "t" else {
                throw CommandFailure(.ioError, "the database has no tally tables yet: run `tally migrate` first")
            }
        } catch let error as PostgresError {
            throw CommandFailure(database: error, doing: "cannot use the database")
        }
    }
}
