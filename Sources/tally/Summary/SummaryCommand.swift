public import ArgumentParser
import Foundation
import TallyCore
import TallyPostgres
public import TallyReports

/// `tally summary`.
struct SummaryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summary",
        abstract: "Summarize stored events by feature, event, day or hour.",
        discussion: """
            Per row: events (each counted once, however often it was stored), unique users (user_id, else \
            anonymous_id), event types, first and last seen. Reads PostgreSQL when --database-url or DATABASE_URL is \
            given (rollups, or the raw events with --exact), else the file store under --data-dir.

            Examples:
              tally summary                                  # by feature
              tally summary --by day --feature episode --since 7d
              tally summary --by event --format csv > events.csv
              tally summary --by hour --since 2026-11-21 --until 2026-11-22 --format json
            """
    )

    @Option(name: .long, help: "Group by feature, event, day or hour.")
    var by: SummaryQuery.Grouping = .feature

    @Option(name: .long, help: "Only this feature.")
    var feature: String?

    @Option(name: .long, help: "Only this event name.")
    var event: String?

    @Option(
        name: .long,
        help: "From this time on: RFC 3339, a date (2026-11-22), or a duration ago (90m, 36h, 7d, 2w)."
    )
    var since: String?

    @Option(name: .long, help: "Before this time, in the same forms as --since.")
    var until: String?

    @Option(name: .long, help: "table, json or csv.")
    var format: SummaryFormat = .table

    @OptionGroup var store: DataDirectoryOption

    @OptionGroup var database: DatabaseOption

    @Flag(name: .long, help: "With PostgreSQL: count from the raw events instead of the rollups.")
    var exact = false

    func validate() throws {
        for (flag, value) in [("--since", since), ("--until", until)] {
            if let value, SummaryQuery.parseTime(value) == nil {
                throw ValidationError(
                    "\(flag) \(value.debugDescription): use RFC 3339, a date like 2026-11-22, or 7d / 36h / 90m."
                )
            }
        }
    }

    func run() async throws {
        let now = Timestamp.now()
        let query = SummaryQuery(
            grouping: by,
            feature: feature,
            event: event,
            since: since.flatMap { SummaryQuery.parseTime($0, now: now) },
            until: until.flatMap { SummaryQuery.parseTime($0, now: now) }
        )
        if database.isGiven {
            do {
                let connection = try await PostgresConnection.connect(database.conninfo)
                let summary = try await PostgresSummarizer(connection: connection).summarize(query, exact: exact)
                await connection.close()
                FileHandle.standardOutput.write(Data(format.render(summary, query: query).utf8))
                return
            } catch let error as PostgresError {
                Terminal.error(error.message)
                throw ExitCode(74)
            }
        }
        guard FileManager.default.fileExists(atPath: store.dataDir) else {
            Terminal.error("no file store at \(store.dataDir) (run `tally ingest` first, or pass --data-dir)")
            throw ExitCode(1)
        }
        do {
            let summary = try FileStoreSummarizer(directory: store.dataDir).summarize(query)
            FileHandle.standardOutput.write(Data(format.render(summary, query: query).utf8))
        } catch {
            Terminal.error("cannot read the file store: \(error)")
            throw ExitCode(74)
        }
    }
}

extension SummaryQuery.Grouping: ExpressibleByArgument {}
extension SummaryFormat: ExpressibleByArgument {}
