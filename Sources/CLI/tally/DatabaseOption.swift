import ArgumentParser
import Foundation

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
}
