import ArgumentParser
import Foundation
import TallyCore
import TallyOperations
import TallyReports

/// `tally summary`.
struct SummaryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summary",
        abstract: "Summarize stored events by feature, event, day or hour.",
        discussion: """
            Per row: events (each counted once, however often it was stored), unique users (user_id, else \
            anonymous_id), event types, first and last seen; then a total row (users and event types distinct \
            over all rows).

            Which store: --store file|postgres; else the file store when --data-dir is given (even with \
            DATABASE_URL set), PostgreSQL when --database-url is given, or when DATABASE_URL (or PGHOST / \
            PGDATABASE) is set; else the file store ($TALLY_DATA_DIR, else ./tally-data). The table's first line \
            and the JSON's "store" say which store was read and what chose it.

            Exit codes: 0 done; 64 usage error (--until not after --since, --by twice, --data-dir with \
            --store postgres, …); 66 no file store at the data directory; 69 the database could not be reached \
            or refused the connection; 74 the store could not be read (or has no tally tables: tally migrate).

            Examples:
              tally summary                                  # by feature
              tally summary --by event --sort count --limit 10
              tally summary --by day --feature episode --since 7d
              tally summary --by event --format csv > events.csv
              tally summary --by hour --since 2026-11-21 --until 2026-11-22 --format json
              tally summary --store file                     # the file store even with DATABASE_URL set
            """
    )

    @Option(
        name: .long,
        help: ArgumentHelp("Group by feature, event, day or hour (once).", valueName: "grouping")
    )
    var by: [SummaryQuery.Grouping] = []

    @Option(name: .long, help: "Only this feature.")
    var feature: String?

    @Option(name: .long, help: "Only this event name.")
    var event: String?

    @OptionGroup var window: TimeWindowOption

    @Option(name: .long, help: "Row order: name (features and events A–Z, days and hours in time order) or count.")
    var sort: SummaryQuery.Sort = .name

    @Option(
        name: .long,
        parsing: .unconditional,
        help: "Show at most this many rows (the total row still counts them all)."
    )
    var limit: Int?

    @Option(name: .long, help: "table, json or csv.")
    var format: SummaryFormat = .table

    @Option(
        name: .long,
        help: "The store to read: file, postgres or clickhouse (default: as 'Which store' above says)."
    )
    var store: SummaryStore.Kind?

    @OptionGroup var dataDirectory: DataDirectoryOption

    @OptionGroup var database: DatabaseOption

    @OptionGroup var clickhouse: ClickHouseOption

    @Flag(name: .long, help: "With PostgreSQL: count from the raw events instead of the rollups.")
    var exact = false

    func validate() throws {
        if by.count > 1 {
            throw ValidationError(
                "--by given \(by.count) times (\(by.map(\.rawValue).joined(separator: ", "))): give one grouping; "
                    + "for a grouping within a feature, filter with --feature and group with --by event."
            )
        }
        if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more.") }
        _ = try chosenStore()
    }

    private func chosenStore() throws -> SummaryStore {
        try SummaryStore.chosen(store, dataDirectory: dataDirectory, database: database)
    }

    func run() async throws {
        let bounds = try window.bounds(now: .now())
        let query = SummaryQuery(
            grouping: by.first ?? .feature,
            feature: feature,
            event: event,
            since: bounds.since,
            until: bounds.until,
            sort: sort,
            limit: limit
        )
        var store = try chosenStore()
        let summary = try await SummaryReading.summarize(
            query,
            store: &store,
            exact: exact,
            clickhouse: clickhouse.nodes
        )
        // CSV has no room for the store line: say it on stderr when another store was configured too.
        if format == .csv, store.note != nil { Terminal.error("read " + store.headline) }
        FileHandle.standardOutput.write(Data(format.render(summary, query: query, store: store).utf8))
    }
}

extension SummaryQuery.Grouping: ExpressibleByArgument {}
extension SummaryQuery.Sort: ExpressibleByArgument {}
extension SummaryFormat: ExpressibleByArgument {}
extension SummaryStore.Kind: ExpressibleByArgument {}
