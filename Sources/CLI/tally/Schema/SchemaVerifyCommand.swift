import ArgumentParser
import TallyCore
import TallyOperations
import TallySchema

/// `tally schema verify --sources DIR... --registry DIR`.
struct SchemaVerifyCommand: ParsableCommand {
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Compare the events Swift code tracks with the tracking plans, for CI.",
        discussion: """
            Parses every .swift file under each --sources directory with swift-syntax (skipping .build and hidden \
            folders) and finds every type conforming to TrackingEventContract (directly, in an extension, or \
            through a protocol refining it) and the names its `name` produces: string literals, switch / if / ?: \
            over them, returns, static lets and constants holding them, an enum's String raw values. Uses of \
            generated events (EpisodeListEvent.viewed) count as the events the plans give them; files written by \
            tally-codegen are not counted on their own. Reports planned events that no code produces, produced \
            events that no plan declares, with file:line, and every `name` it cannot evaluate (interpolation, a \
            function call), with file:line, rather than guessing.

            Pass the Sources directory of every package of the app: an event tracked in one package and planned \
            in a shared registry is found wherever it is.

            Exit codes: 0 plans and code agree; 1 findings (listed); 64 usage error (a --sources or --registry \
            directory is missing); 65 the registry has problems (see `tally schema lint`); 74 a source file cannot \
            be read.

            Examples:
              tally schema verify --sources Examples/EpisodeFeature/Sources --registry Examples/registry
              tally schema verify --sources Packages/Search/Sources --sources Packages/Player/Sources --format json
            """
    )

    @Option(name: .long, parsing: .upToNextOption, help: "Directories (or files) of Swift sources; repeatable.")
    var sources: [String] = []

    @OptionGroup var registry: RegistryOption

    @Option(name: .long, help: "text or json.")
    var format: Format = .text

    func validate() throws {
        if sources.isEmpty { throw ValidationError("Pass --sources DIR (the Swift sources to read; repeatable).") }
    }

    func run() throws {
        let loaded = try registry.load()
        let report: VerifyReport
        do {
            report = try PlanVerifier(registry: loaded).verify(sources: sources)
        } catch let error as VerifyError {
            throw CommandFailure(error.code == .missingSources ? .usage : .ioError, error.message)
        }
        switch format {
        case .text: Terminal.print(VerifyReportRenderer.text(report, registry: loaded))
        case .json: Terminal.print(VerifyReportRenderer.json(report))
        }
        if report.hasFindings { throw ExitCode.findings }
    }
}
