import ArgumentParser
import Foundation
import TallyOperations
import TallyReports

/// `tally report lint`.
struct ReportLintCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check every saved report of a directory: definitions, and (with --registry) events and properties.",
        discussion: """
            An invalid definition is an error with the file and the JSON path; with --registry, an event or \
            property no plan declares is a warning naming the plan it was looked for in, and a numeric filter \
            on a property declared otherwise is an error. Exit codes: 0 no errors (warnings allowed); 1 errors; \
            64 no such directory.

            Examples:
              tally report lint reports/ --registry plans/
            """
    )

    @Argument(help: "The reports directory.")
    var directory: String

    @Option(name: .long, help: "Tracking plans to check events and properties against.")
    var registry: String?

    func run() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw CommandFailure(.usage, "the reports directory \(directory) does not exist") }
        let plans = try registry.map { try RegistryOption.load(directory: $0) }
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted()
        var errors = 0
        var reports = 0
        for name in files {
            let path = (directory as NSString).appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: path) else {
                Terminal.error("\(path): cannot be read")
                errors += 1
                continue
            }
            do throws(ReportError) {
                let file = try SavedReportFile(Array(data))
                reports += file.reports.count
                guard let plans else { continue }
                for (index, report) in file.reports.enumerated() {
                    let at = file.title == nil ? "" : " $.reports[\(index)]"
                    for finding in ReportPlanCheck.check(report, registry: plans) {
                        Terminal.print("\(path)\(at): \(finding)")
                        if finding.isError { errors += 1 }
                    }
                }
            } catch {
                Terminal.print("\(path): \(error)")
                errors += 1
            }
        }
        if errors > 0 {
            Terminal.error("\(errors) error\(errors == 1 ? "" : "s") in \(directory)")
            throw ExitCode.findings
        }
        Terminal.print(
            "ok: \(reports) report\(reports == 1 ? "" : "s") in \(files.count) file\(files.count == 1 ? "" : "s")"
        )
    }
}
