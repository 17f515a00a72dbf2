import ArgumentParser
import TallyReports

/// `tally report retention`.
struct ReportRetentionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "Do actors come back: cohorts by start event, and who returns in each later period.",
        discussion: """
            Examples:
              tally report retention --start episode_list_viewed --return player_opened --period week --periods 8
              tally report retention --start app_opened --return app_opened --period day --periods 30 --cohort-mode recurring
            """
    )

    @OptionGroup var retention: RetentionOptions

    @OptionGroup var options: ReportOptions

    func makeReport() throws -> Report { try options.report(.retention(try retention.definition())) }

    func validate() throws { _ = try makeReport() }

    func run() async throws { try await options.run(try makeReport()) }
}
