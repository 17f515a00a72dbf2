package import TallyPostgres

/// A command that cannot finish: what to tell the user and the exit code that says why.
///
/// Commands throw it instead of printing and exiting themselves, so that `tally`'s `main` prints
/// every failure the same way and a database that is down exits 69 from every command.
package struct CommandFailure: Error, CustomStringConvertible {
    /// The message, with advice on what to do next.
    package var message: String
    /// The sysexits code.
    package var exitCode: Sysexit

    package init(_ exitCode: Sysexit, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    /// A PostgreSQL error as the commands report it: 69 when the server cannot be reached or
    /// refused the connection, else 74 (it refused a statement); `doing` says what was attempted.
    package init(database error: PostgresError, doing: String) {
        if error.isConnectionProblem {
            self.init(
                .unavailable,
                "cannot connect to the database: \(error.message)\n"
                    + "  check --database-url (or DATABASE_URL / PG*) and that the server is up; `tally doctor` tells more"
            )
        } else if error.sqlState == "42P01" || error.sqlState == "3F000" {
            self.init(
                .ioError,
                "\(doing): \(error.message)\n  the database has no tally tables yet: run `tally migrate` first"
            )
        } else {
            self.init(.ioError, "\(doing): \(error.message)")
        }
    }

    package var description: String { message }
}
