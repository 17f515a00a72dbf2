import ArgumentParser
import Foundation
import TallyCore
import TallyOperations
import TallySchema

/// `tally schema import --from iglu|segment SOURCE`.
struct SchemaImportCommand: ParsableCommand {
    enum Source: String, ExpressibleByArgument, CaseIterable {
        case iglu, segment
    }

    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Convert Snowplow Iglu schemas or a Segment Protocols plan into tally tracking plans.",
        discussion: """
            Writes one plan per feature into --output (or only reports, with --dry-run). Event names are kept \
            exactly as the source spells them ("naming": "as_sent") and properties are validated with plain \
            JSON Schema semantics ("normalize_strings": false). A Segment plan may be the Public API's rules \
            (rules[] with jsonSchema, or {"data": {"rules": [...]}}), the Config API's plan (rules.events[]) or a \
            2018 local plan file ({name, events: [{name, rules}]}). Everything that cannot be imported (schemas \
            the registry refuses, context and traits rules, identify, group, page, screen and common rules, \
            broken files) is listed with its path and reason.

            Exit codes: 0 done; 1 nothing was imported and something was refused; 64 usage error; \
            73 the output directory cannot be written; 74 writing failed (no space, I/O error).

            Examples:
              tally schema import --from iglu ../iglu-central/schemas --output plans
              tally schema import --from iglu ../iglu-central/schemas --vendor com.snowplowanalytics.mobile --dry-run
              tally schema import --from segment tracking-plan.json --feature shop --output plans
            """
    )

    @Option(name: .long, help: "The source format: iglu (a directory) or segment (a plan JSON file, any export shape).")
    var from: Source

    @Argument(help: "The Iglu schemas directory or the Segment plan file.")
    var source: String

    @Option(name: .long, help: "Where to write the plans (one FEATURE.json each).")
    var output: String?

    @Option(name: .long, help: "Segment only: the feature name (default: from the plan's name).")
    var feature: String?

    @Option(name: .long, help: "Iglu only: import just this vendor and those under it (repeatable).")
    var vendor: [String] = []

    @Flag(name: .long, help: "Report only; write nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Do not list the individual refusals.")
    var quiet = false

    func validate() throws {
        if output == nil && !dryRun { throw ValidationError("Pass --output DIR (or --dry-run to only report).") }
        if feature != nil && from != .segment { throw ValidationError("--feature applies to --from segment only.") }
        if !vendor.isEmpty && from != .iglu { throw ValidationError("--vendor applies to --from iglu only.") }
        guard FileManager.default.fileExists(atPath: source) else {
            throw ValidationError("\(source) does not exist.")
        }
    }

    func run() throws {
        let report =
            switch from {
            case .iglu: IgluImporter(vendors: vendor).importRegistry(at: source)
            case .segment: SegmentImporter().importPlan(at: source, feature: feature)
            }
        if !quiet {
            for refusal in report.refusals { Terminal.print("refused   \(refusal)") }
        }
        if let output, !dryRun {
            do {
                try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
                for (feature, plan) in report.plans.sorted(by: { $0.key < $1.key }) {
                    let path = output + "/" + feature + ".json"
                    try (JSONWriter.text(plan, pretty: true) + "\n").write(
                        toFile: path,
                        atomically: true,
                        encoding: .utf8
                    )
                }
            } catch {
                Terminal.error("cannot write to \(output): \(FileErrorText.describe(error))")
                throw ExitCode(FileErrorText.writeFailureCode(error))
            }
        }
        Terminal.print(
            "imported \(report.importedCount), refused \(report.refusals.count); "
                + "\(report.plans.count) plan\(report.plans.count == 1 ? "" : "s")"
                + (dryRun ? " (dry run: nothing written)" : " written to \(output ?? "")")
        )
        // Nothing to show for the run but refusals: a script must not take that for success.
        if report.importedNothing { throw ExitCode.findings }
    }
}
