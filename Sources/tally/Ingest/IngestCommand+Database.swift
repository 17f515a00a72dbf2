import TallyPostgres

extension IngestCommand {
    /// Fails fast, before reading anything, when the database cannot take events: 69 when it
    /// cannot be reached or refuses the connection, 74 when it has no tally tables.
    func checkDatabase() async throws {
        do {
            let connection = try await PostgresConnection.connect(database.conninfo)
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
