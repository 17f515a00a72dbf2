import ArgumentParser
import Foundation
import TallyCore
import TallyOperations
import TallyReports

/// `tally report run`: saved reports.
struct ReportRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a saved report (or each report of a saved dashboard) from the reports directory.",
        discussion: """
            A saved report is a JSON file (docs/reports.md, Saved reports): reports/NAME.json holds one report, \
            or a dashboard {"title": …, "reports": [ … ]} whose reports run in order.

            Examples:
              tally report run onboarding                      # reports/onboarding.json
              tally report run weekly --reports app/reports --format json
            """
    )

    @Argument(help: "The report's name (reports/NAME.json) or a path to its file.")
    var name: String

    @Option(name: .long, help: "The reports directory (default ./reports).")
    var reports: String = "reports"

    @OptionGroup var output: ReportOutputOptions

    func run() async throws {
        let path =
            name.hasSuffix(".json") || name.contains("/") ? name : reports + "/" + name + ".json"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(.usage, "no saved report at \(path) (tally report run NAME reads REPORTS/NAME.json)")
        }
        let file: SavedReportFile
        do throws(ReportError) {
            file = try SavedReportFile(Array(data))
        } catch {
            throw CommandFailure(.usage, "\(path): \(error)")
        }
        var texts: [String] = []
        for report in file.reports {
            if output.format == .json {
                let (scope, result, store) = try await output.evaluate(report)
                texts.append(ReportJSONOutput.render(result, scope: scope, store: store))
            } else {
                let title = report.title.map { "## \($0)\n" } ?? ""
                texts.append(title + (try await output.render(report)))
            }
        }
        let text: String
        if output.format == .json, let title = file.title {
            text =
                "{\"title\":" + JSONWriter.text(.string(title)) + ",\"reports\":["
                + texts.map { $0.trimmingCharacters(in: .newlines) }.joined(separator: ",") + "]}\n"
        } else {
            text = texts.joined(separator: "\n")
        }
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
