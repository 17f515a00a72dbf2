import ArgumentParser
import TallyReports

/// `tally report actors`: the drill-down.
struct ReportActorsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "actors",
        abstract: "The actors behind a number: a funnel step, a retention cell, a breakdown value (CSV or JSON).",
        subcommands: [Funnel.self, Retention.self, Breakdown.self]
    )

    /// `tally report actors funnel`.
    struct Funnel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Actors that reached a step (--reached K), or reached it and not the next (--dropped-after K).",
            discussion: """
                Examples:
                  tally report actors funnel --step a --step b --step c --dropped-after 2 --format csv > dropped.csv
                """
        )

        @OptionGroup var funnel: FunnelOptions

        @Option(name: .long, help: "List the actors that reached step K.")
        var reached: Int?

        @Option(name: .long, help: "List the actors that reached step K and not step K + 1.")
        var droppedAfter: Int?

        @Option(name: .long, help: "In the funnel of this breakdown value only (with --by).")
        var value: String?

        @OptionGroup var options: ReportOptions

        func makeReport() throws -> Report {
            let definition = try funnel.definition()
            switch (reached, droppedAfter) {
            case (let step?, nil):
                return try options.report(.actors(.funnelStep(definition, step: step, value: value)))
            case (nil, let step?):
                return try options.report(.actors(.funnelDropped(definition, after: step, value: value)))
            default: throw ValidationError("Give --reached K or --dropped-after K.")
            }
        }

        func validate() throws { _ = try makeReport() }

        func run() async throws { try await options.run(try makeReport()) }
    }

    /// `tally report actors retention`.
    struct Retention: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Actors of one retention cell: a cohort (--cohort START) at an offset (--offset K).",
            discussion: """
                Examples:
                  tally report actors retention --start a --return b --cohort 2026-11-02 --offset 3 --tz Europe/Paris
                """
        )

        @OptionGroup var retention: RetentionOptions

        @Option(name: .long, help: "The cohort: its start (a date or RFC 3339), or any instant in its period.")
        var cohort: String

        @Option(name: .long, help: "The offset: 0 for the cohort itself.")
        var offset: Int

        @OptionGroup var options: ReportOptions

        func makeReport() throws -> Report {
            try options.report(.actors(.retentionCell(try retention.definition(), cohort: cohort, offset: offset)))
        }

        func validate() throws { _ = try makeReport() }

        func run() async throws { try await options.run(try makeReport()) }
    }

    /// `tally report actors breakdown`.
    struct Breakdown: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Actors with an event whose field has a value (--value V; (none) for unset).",
            discussion: """
                Examples:
                  tally report actors breakdown --event player_opened --by context.app_version --value 4.2.0
                """
        )

        @Option(name: .long, help: "The event: NAME, NAME|NAME, or NAME where FILTER (default: every event).")
        var event: String?

        @Option(name: .customLong("by"), help: "The field.")
        var field: String

        @Option(name: .long, help: "The value, as the breakdown names it ((none), (other)).")
        var value: String

        @Option(name: .long, help: "The breakdown's rows (for --value (other)).")
        var top: Int?

        @OptionGroup var options: ReportOptions

        func makeReport() throws -> Report {
            let field: ReportField
            do throws(ReportError) { field = try ReportField(self.field) } catch {
                throw ValidationError("--by \(error.message)")
            }
            let selected = try event.map { try selector($0, option: "--event") } ?? EventSelector(names: [])
            let definition = BreakdownDefinition(event: selected, field: field, top: top)
            return try options.report(.actors(.breakdownValue(definition, value: value)))
        }

        func validate() throws { _ = try makeReport() }

        func run() async throws { try await options.run(try makeReport()) }
    }
}
