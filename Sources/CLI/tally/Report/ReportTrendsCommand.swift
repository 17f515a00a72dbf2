import ArgumentParser
import TallyReports

/// `tally report trends`.
struct ReportTrendsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trends",
        abstract: "Events over time: a count, actors or a property's sum, average, … per hour, day, week or month.",
        discussion: """
            Every bucket of the range is listed (zero-filled), in the --tz zone (days of 23 or 25 hours where \
            the clocks change).

            Examples:
              tally report trends --event episode_list_viewed --last 30d
              tally report trends --event player_opened --measure actors --interval week --tz Europe/Paris
              tally report trends --event 'player_speed_changed' --measure avg:speed --by context.app_version --top 3
              tally report trends --event 'episode_list_episode_selected where position < 3' --compare
            """
    )

    @Option(
        name: .long,
        help: "An event: NAME, NAME|NAME, or NAME where FILTER (repeatable: one series each; none: every event)."
    )
    var event: [String] = []

    @Option(name: .long, help: "hour, day, week or month.")
    var interval: ReportInterval = .day

    @Option(name: .long, help: "count, actors, or sum|avg|min|max|median|p90:PROPERTY.")
    var measure: String = "count"

    @Option(name: .customLong("by"), help: "Break each series down by a field (a property, context.KEY, feature, …).")
    var breakdown: String?

    @Option(name: .long, help: "Breakdown values kept apart; the rest are (other).")
    var top: Int = 10

    @Flag(name: .long, help: "Add the previous period of the same length.")
    var compare = false

    @OptionGroup var options: ReportOptions

    func makeReport() throws -> Report {
        // No --event: one series of every event.
        let selectors =
            try event.isEmpty ? [EventSelector(names: [])] : event.map { try selector($0, option: "--event") }
        var trends = TrendsDefinition(events: selectors)
        trends.interval = interval
        do throws(ReportError) {
            trends.measure = try ReportMeasure(measure)
            trends.breakdown = try breakdown.map { (text) throws(ReportError) in try ReportField(text) }
        } catch {
            throw ValidationError(error.message)
        }
        trends.top = top
        trends.compare = compare
        return try options.report(.trends(trends))
    }

    func validate() throws { _ = try makeReport() }

    func run() async throws { try await options.run(try makeReport()) }
}
