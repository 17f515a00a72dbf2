import TallyPostgres

/// `tally migrate` on PostgreSQL: the migrations applied, failures turned into the command's
/// messages and exit codes.
package enum PostgresMigration {
    /// Applies the migrations built into the binary, or those of `directory`, to the database of
    /// `conninfo`; what was done, as one line.
    package static func run(conninfo: String?, directory: String?) async throws -> String {
        do {
            let connection = try await PostgresConnection.connect(conninfo)
            let outcome = try await (directory.map(Migrator.init(directory:)) ?? .standard).migrate(connection)
            await connection.close()
            if outcome.applied.isEmpty {
                return "up to date: \(outcome.alreadyApplied.count) migration(s) already applied"
            }
            return "applied \(outcome.applied.joined(separator: ", ")); \(outcome.alreadyApplied.count) already applied"
        } catch let error as PostgresError where error.code == .migration {
            throw CommandFailure(.dataError, error.message)
        } catch let error as PostgresError {
            throw CommandFailure(database: error, doing: "cannot migrate")
        }
    }
}
