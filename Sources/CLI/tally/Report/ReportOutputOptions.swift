import ArgumentParser
import Foundation
import TallyOperations
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

    /// Runs `report` on the chosen store; its text in the chosen format.
    func render(_ report: Report) async throws -> String {
        let (scope, result, store) = try await evaluate(report)
        switch format {
        case .table: return ReportTextOutput.table(result, scope: scope, store: store)
        case .json: return ReportJSONOutput.render(result, scope: scope, store: store)
        case .csv: return ReportTextOutput.csv(result, scope: scope)
        }
    }

    /// Runs `report` on the chosen store: its scope, answer and the store's headline.
    func evaluate(_ report: Report) async throws -> (ReportScope, ReportResult, String) {
        try await ReportReading.evaluate(
            report,
            store: try SummaryStore.chosen(store, dataDirectory: dataDirectory, database: database),
            clickhouse: clickhouse.nodes
        )
    }
}
