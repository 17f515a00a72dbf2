package import TallyPostgres

/// What a command checks of PostgreSQL before it reads or serves anything, and how it names the
/// database it reads.
package enum PostgresReadiness {
    /// Fails fast, before anything is read or served, when the database cannot take events: 69 when it
    /// cannot be reached or refuses the connection, 74 when it has no tally tables.
    package static func checkReadyForEvents(conninfo: String?) async throws {
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

    /// The database as the server names it: never the URL, which may hold a password.
    package static func describe(_ connection: PostgresConnection) async throws -> String {
        let rows = try await connection.query(
            "SELECT current_database(), host(inet_server_addr()), current_setting('port')"
        )
        let row = rows.first ?? []
        let name = row.first.flatMap { $0 } ?? "?"
        let port = row.count > 2 ? row[2] ?? "" : ""
        if row.count > 1, let host = row[1] { return "database \(name) on \(host):\(port)" }
        return "database \(name) (local socket, port \(port))"
    }
}
