import ArgumentParser
import TallyCodegen
import TallyOperations
import TallySchema

/// `tally schema generate --swift --registry DIR --output DIR`.
struct SchemaGenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate typed Swift events from the tracking plans.",
        discussion: """
            Writes one FILE.tracking.swift per plan FILE.json into --output: an enum per screen (EpisodeListEvent; \
            one per feature for plans without screens) conforming to TrackingEventContract, a case per event (its \
            latest version) with the plan's properties as typed parameters (Int, Double, Bool, String, enums for \
            `enum`, structs for nested objects, arrays; optional when not required). A misspelled event or a value \
            of the wrong type then fails to compile. The same plans always give the same bytes.

            Names that are not Swift identifiers (`$pageview`, `3d_touch`, keywords) or that collide once \
            converted are renamed, and schemas no single Swift type expresses become a String sent as written: \
            each is reported on stderr as a warning. To generate at build time instead, add TallyPlanPlugin to the \
            target and put the plans in its TrackingPlans directory (docs/tracking-plans.md).

            Exit codes: 0 done; 64 usage error; 65 the registry has problems (see `tally schema lint`); 73 the \
            output directory cannot be written; 74 writing failed (no space, I/O error).

            Examples:
              tally schema generate --swift --registry Examples/registry --output Sources/Episode/Generated
              tally schema generate --swift --registry plans --output Generated --quiet
            """
    )

    @Flag(name: .long, help: "Generate Swift (the one language so far; required, for scripts that read well).")
    var swift = false

    @OptionGroup var registry: RegistryOption

    @Option(name: .long, help: "The directory to write the Swift files to (created when missing).")
    var output: String

    @Flag(name: .long, help: "Do not report renamed names and approximated schemas.")
    var quiet = false

    func validate() throws {
        if !swift { throw ValidationError("Pass --swift: Swift is the language generated.") }
    }

    func run() throws {
        let generator = SwiftCodeGenerator(registry: try registry.load())
        if !quiet {
            for diagnostic in generator.diagnostics { Terminal.error("warning: \(diagnostic)") }
        }
        let written: [String]
        do {
            written = try generator.write(to: output)
        } catch {
            throw CommandFailure(
                FileErrorText.writeFailureCode(error),
                "cannot write to \(output): \(FileErrorText.describe(error))"
            )
        }
        Terminal.print(
            "generated \(generator.files.count) file\(generator.files.count == 1 ? "" : "s") in \(output) "
                + "(\(written.count) changed)"
        )
    }
}
