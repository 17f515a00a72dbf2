import ArgumentParser
import TallyReports

/// A funnel on the command line (`tally report funnel`, `tally report actors funnel`).
struct FunnelOptions: ParsableArguments {
    @Option(name: .long, help: "A step: NAME, NAME|NAME, or NAME where FILTER (2 to 10, in order).")
    var step: [String] = []

    @Option(name: .long, help: "The conversion window: 12h, 1d, 2w (above zero).")
    var window: String = "1d"

    @Option(name: .long, help: "ordered, strict (no other event between steps) or unordered.")
    var order: FunnelDefinition.Order = .ordered

    @Option(
        name: .long,
        help: "An exclusion: SELECTOR with --between A B, or 'SELECTOR between A and B' (repeatable)."
    )
    var exclude: [String] = []

    @Option(
        name: .long,
        parsing: .upToNextOption,
        help: ArgumentHelp("The steps an --exclude lies between, in --exclude's order.", valueName: "A B")
    )
    var between: [Int] = []

    @Option(name: .customLong("by"), help: "Break down by a field of the step-1 event.")
    var breakdown: String?

    @Option(name: .long, help: "Breakdown values shown (most step-1 actors first).")
    var top: Int = 10

    func definition() throws -> FunnelDefinition {
        guard let window = ReportRange.parseDuration(self.window) else {
            throw ValidationError(
                "--window \(self.window.debugDescription): a duration above zero such as 12h, 7d or 2w."
            )
        }
        var funnel = FunnelDefinition(steps: try step.map { try selector($0, option: "--step") }, window: window)
        funnel.order = order
        do throws(ReportError) {
            if between.isEmpty {
                funnel.exclusions = try exclude.map { (text) throws(ReportError) in try SelectorSyntax.exclusion(text) }
            } else {
                guard between.count == 2 * exclude.count else {
                    throw ReportError(.syntax, path: "", "--between A B: one pair of steps for each --exclude")
                }
                for (index, text) in exclude.enumerated() {
                    let event = try SelectorSyntax.selector(text)
                    funnel.exclusions.append(.init(event: event, from: between[2 * index], to: between[2 * index + 1]))
                }
            }
            funnel.breakdown = try breakdown.map { (text) throws(ReportError) in try ReportField(text) }
        } catch {
            throw ValidationError(error.message)
        }
        funnel.top = top
        return funnel
    }
}
