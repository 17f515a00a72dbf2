import ArgumentParser
import Foundation
import TallyCodegen
import TallySchema

/// `tally-codegen`: the tool TallyPlanPlugin runs at build time; `tally schema generate --swift`
/// does the same from the command line.
@main
struct CodegenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tally-codegen",
        abstract: "Generate typed Swift tracking events from a registry of tracking plans.",
        discussion: """
            Writes one FILE.tracking.swift per plan FILE.json into --output. Exit codes: 0 done; 64 usage error; \
            65 the registry has problems (run `tally schema lint`); 74 the files could not be written.
            """
    )

    @Option(name: .long, help: "The registry directory (tracking plans, one JSON file per feature).")
    var registry: String

    @Option(name: .long, help: "The directory to write the Swift files to.")
    var output: String

    @Flag(name: .long, help: "Do not report converted names and approximated schemas.")
    var quiet = false

    func run() throws {
        let loaded: SchemaRegistry
        do {
            loaded = try SchemaRegistry.load(directory: registry)
        } catch {
            for problem in error.problems { printError("error: \(problem)") }
            throw ExitCode(65)
        }
        let generator = SwiftCodeGenerator(registry: loaded)
        if !quiet {
            for diagnostic in generator.diagnostics { printError("warning: \(diagnostic)") }
        }
        do {
            _ = try generator.write(to: output)
        } catch {
            printError("error: cannot write to \(output): \(error.localizedDescription)")
            throw ExitCode(74)
        }
    }

    private func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
