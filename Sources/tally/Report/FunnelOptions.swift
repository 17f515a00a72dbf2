import ArgumentParser
import TallyReports

/// A funnel on the command line (`tally report funnel`, `tally report actors funnel`).
struct FunnelOptions: ParsableArguments {
    @Option(name: .long, help: "A step: NAME, NAME|NAME, or NAME where FILTER (2 to 10, in order).")
    var step: [String] = []

    @Option(name: .long, help: "The conversion window: 12h, 7d, 2w (above zero; default 7d).")
    var window: String = "7d"

    @Option(name: .long, help: "ordered (default), strict (no other event between steps) or unordered.")
    var order: FunnelDefinition.Order = .ordered

    @Option(name: .long, help: "An exclusion: 'SELECTOR between A and B' cuts chains with it between steps A and B.")
    var exclude: [String] = []

    @Option(name: .customLong("by"), help: "Break down by a field of the step-1 event.")
    var breakdown: String?

    @Option(name: .long, help: "Breakdown values shown (most step-1 actors first).")
    var top: Int = 10

    func definition() throws -> FunnelDefinition {
        guard let window = ReportRange.parseDuration(self.window) else {
            throw ValidationError("--window \(self.window.debugDescription): a duration above zero such as 12h, 7d or 2w.")
        }
        var funnel = FunnelDefinition(steps: try step.map { try selector($0, option: "--step") }, window: window)
        funnel.order = order
        do throws(ReportError) {
            funnel.exclusions = try exclude.map { (text) throws(ReportError) in try SelectorSyntax.exclusion(text) }
            funnel.breakdown = try breakdown.map { (text) throws(ReportError) in try ReportField(text) }
        } catch {
            throw ValidationError(error.message)
        }
        funnel.top = top
        return funnel
    }
}
