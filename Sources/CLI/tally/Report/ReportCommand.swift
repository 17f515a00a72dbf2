import ArgumentParser

/// `tally report`.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Answer product questions: trends, breakdowns, funnels, retention, and the actors behind them.",
        discussion: """
            Every report reads the store `tally summary` reads and gives the same answer on PostgreSQL and the \
            file store; definitions (actors and identity merging, windows, cohorts, buckets across clock \
            changes) are in docs/reports.md. Saved reports are JSON files: `tally report run NAME`.

            Exit codes: 0 done; 1 lint found errors; 64 usage error (an unknown kind, a window of zero, more \
            than 10 steps, an unknown time zone, a numeric filter on a non-number, an empty range); 66 no file \
            store; 69 the database could not be reached; 74 the store could not be read.
            """,
        subcommands: [
            ReportTrendsCommand.self, ReportBreakdownCommand.self, ReportFunnelCommand.self,
            ReportRetentionCommand.self, ReportActorsCommand.self, ReportRunCommand.self, ReportLintCommand.self,
        ]
    )
}
