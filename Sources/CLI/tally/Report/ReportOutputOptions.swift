import ArgumentParser
import Foundation
import TallyCore
import TallyPostgres
import TallyReports

/// Where a report is read from and how it is printed: the store (as `tally summary` chooses it)
/// and the format.
struct ReportOutputOptions: ParsableArguments {
    @Option(name: .long, help: "table, json or csv.")
    var format: ReportFormat = .table

    @Option(name: .long, help: "The store to read: file, postgres or clickhouse (default: as `tally summary` chooses).")
    var store: SummaryStore.Kind?

    @OptionGroup var dataDirectory: DataDirectoryOption

    @OptionGroup var database: DatabaseOption

    @OptionGroup var clickhouse: ClickHouseOption

    /// A definition error found while running (a cohort outside the range) is a usage error.
    private static func running<Value>(_ body: () async throws -> Value) async throws -> Value {
        do {
            return try await body()
        } catch let error as ReportError {
            throw CommandFailure(.usage, ReportOptions.message(error))
        }
    }

    /// Runs `report` on the chosen store; its text in the chosen format.
    func render(_ report: Report) async throws -> String {
        let (scope, result, store) = try await evaluate(report)
        switch format {
        case .table: return ReportTextOutput.table(result, scope: scope, store: store)
        case .json: return ReportJSONOutput.render(result, scope: scope, store: store)
        case .csv: return ReportTextOutput.csv(result, scope: scope)
        }
    }

    /// Names the report's events that the store holds none of in the range: a typo, or an event
    /// not sent yet (the report shows zeros for them).
    static func noteMissing(_ report: Report, seen: Set<String>) {
        let missing = Set(report.selectors.flatMap(\.names)).subtracting(seen).sorted()
        for name in missing {
            Terminal.error("note: the store holds no event named \(name.debugDescription) in the range")
        }
    }

    /// Runs `report` on the chosen store: its scope, answer and the store's headline.
    func evaluate(_ report: Report) async throws -> (ReportScope, ReportResult, String) {
        var chosen = try SummaryStore.chosen(store, dataDirectory: dataDirectory, database: database)
        let (scope, result): (ReportScope, ReportResult)
        switch chosen.kind {
        case .clickhouse:
            (scope, result) = try await clickhouse.run(report, store: &chosen)
        case .file:
            guard FileManager.default.fileExists(atPath: chosen.directory) else {
                throw CommandFailure(
                    .noInput,
                    "no file store at \(chosen.directory) (run `tally ingest` first, or pass --data-dir"
                        + (chosen.note.map { "; \($0)" } ?? "") + ")"
                )
            }
            let source = FileStoreReportSource(directory: chosen.directory)
            (scope, result) = try await Self.running { try await ReportRunner.run(report, on: source) }
            Self.noteMissing(report, seen: source.names.withLock { $0 })
            let problems = source.problems.withLock { $0 }
            if problems > 0 {
                Terminal.error("note: \(problems) unreadable or torn line(s) in the file store were left out")
            }
        case .postgres:
            do {
                let connection = try await PostgresConnection.connect(chosen.conninfo)
                chosen.location = try await SummaryStore.describe(connection)
                do {
                    let source = PostgresReportSource(connection: connection)
                    (scope, result) = try await Self.running { try await ReportRunner.run(report, on: source) }
                    Self.noteMissing(report, seen: source.names.withLock { $0 })
                } catch {
                    await connection.close()
                    throw error
                }
                await connection.close()
            } catch let error as PostgresError {
                throw CommandFailure(database: error, doing: "cannot read the database")
            }
        }
        return (scope, result, chosen.headline)
    }
}
