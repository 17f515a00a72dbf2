import ArgumentParser
import TallyReports

/// A retention report on the command line (`tally report retention`, `tally report actors retention`).
struct RetentionOptions: ParsableArguments {
    @Option(name: .long, help: "The start event (cohorts): NAME, NAME|NAME, or NAME where FILTER.")
    var start: String

    @Option(name: .customLong("return"), help: "The return event.")
    var returning: String

    @Option(name: .long, help: "day, week or month.")
    var period: ReportInterval = .week

    @Option(name: .long, help: "Periods after the cohort's own (1 to 366).")
    var periods: Int = 8

    @Option(name: .long, help: "first-time (the first-ever start event) or recurring (each period with one).")
    var cohortMode: String = "first-time"

    func definition() throws -> RetentionDefinition {
        var retention = RetentionDefinition(
            start: try selector(start, option: "--start"),
            returning: try selector(returning, option: "--return")
        )
        retention.period = period
        retention.periods = periods
        guard let mode = RetentionDefinition.CohortMode(rawValue: cohortMode.replacingOccurrences(of: "_", with: "-"))
        else { throw ValidationError("--cohort-mode \(cohortMode.debugDescription): first-time or recurring.") }
        retention.cohortMode = mode
        return retention
    }
}
