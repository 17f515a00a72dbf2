import ArgumentParser
import TallyOperations

/// `tally migrate`.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Create or update tally's tables in PostgreSQL.",
        discussion: """
            Applies the numbered migrations that are not applied yet, each in a transaction, recording version \
            and checksum in tally.schema_migrations. The migrations are built into this binary (the schema it \
            writes), so it runs from any directory; --migrations DIR or $TALLY_SQL_DIR applies a directory of \
            them instead. Refuses to continue if an applied file was edited. Safe to run again and from several \
            hosts at once.

            Exit codes: 0 done; 65 a migration file is missing, malformed or was edited after it was applied; \
            69 the database could not be reached or refused the connection; 74 the server refused a statement.

            Examples:
              tally migrate --database-url postgresql://tally_owner@db.internal/analytics
              DATABASE_URL=postgresql:///analytics tally migrate
              tally migrate --clickhouse --clickhouse-url http://ch1:8123,http://ch2:8123
            """
    )

    @OptionGroup var database: DatabaseOption

    @Flag(name: .long, help: "Migrate ClickHouse (every node of --clickhouse-url) instead of PostgreSQL.")
    var clickhouse = false

    @OptionGroup var clickhouseNodes: ClickHouseOption

    @Option(
        name: .long,
        help: "A directory of migrations to apply instead of the built-in ones (default: $TALLY_SQL_DIR if set)."
    )
    var migrations: String?

    func run() async throws {
        if clickhouse {
            for line in try await clickhouseNodes.nodes.migrate() { Terminal.print(line) }
            return
        }
        Terminal.print(try await PostgresMigration.run(conninfo: database.conninfo, directory: migrations))
    }
}
