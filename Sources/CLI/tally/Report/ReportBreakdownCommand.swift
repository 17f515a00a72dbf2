import ArgumentParser
import TallyReports

/// `tally report breakdown`.
struct ReportBreakdownCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "breakdown",
        abstract: "The values of a property or context field: events, distinct actors and estimated events each.",
        discussion: """
            Examples:
              tally report breakdown --event player_speed_changed --by speed
              tally report breakdown --event player_opened --by context.app_version --top 5 --format csv
            """
    )

    @Option(name: .long, help: "The event: NAME, NAME|NAME, or NAME where FILTER (default: every event).")
    var event: String?

    @Option(name: .customLong("by"), help: "The field: a property, context.KEY, feature, …")
    var field: String

    @Option(name: .long, help: "Rows kept; the rest are (other) (default: all).")
    var top: Int?

    @OptionGroup var options: ReportOptions

    func makeReport() throws -> Report {
        let field: ReportField
        do throws(ReportError) { field = try ReportField(self.field) } catch {
            throw ValidationError("--by \(error.message)")
        }
        let selected = try event.map { try selector($0, option: "--event") } ?? EventSelector(names: [])
        let definition = BreakdownDefinition(event: selected, field: field, top: top)
        return try options.report(.breakdown(definition))
    }

    func validate() throws { _ = try makeReport() }

    func run() async throws { try await options.run(try makeReport()) }
}
