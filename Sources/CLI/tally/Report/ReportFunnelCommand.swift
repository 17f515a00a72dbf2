import ArgumentParser
import TallyReports

/// `tally report funnel`.
struct ReportFunnelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "funnel",
        abstract: "Do actors get through a flow: actors per step, conversion, median time between steps.",
        discussion: """
            An actor reaches step k when it has distinct events matching steps 1…k in time order (equal times \
            in any order), the first in the range and the last within the window of it (docs/reports.md).

            Examples:
              tally report funnel --step episode_list_viewed --step episode_list_episode_selected --step player_opened
              tally report funnel --window 1d --order strict --step a --step 'b where plan = pro'
              tally report funnel --step a --step b --step c --exclude 'search_viewed between 1 and 2' --by context.platform
            """
    )

    @OptionGroup var funnel: FunnelOptions

    @OptionGroup var options: ReportOptions

    func makeReport() throws -> Report { try options.report(.funnel(try funnel.definition())) }

    func validate() throws { _ = try makeReport() }

    func run() async throws { try await options.run(try makeReport()) }
}
