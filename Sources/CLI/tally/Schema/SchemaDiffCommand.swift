import ArgumentParser
import TallyOperations
import TallySchema

/// `tally schema diff OLD NEW`.
struct SchemaDiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Classify every change between two registries by SchemaVer rules.",
        discussion: """
            MODEL: a property removed or retyped, made required, or an event removed. REVISION: a constraint \
            tightened, or a property added while undeclared ones were allowed. ADDITION: an optional property \
            added to a closed schema, a constraint relaxed. The device's rules count too: a property marked, unmarked \
            or re-marked as personal data (x-tally-personal-data) is MODEL, a sample rate set or changed \
            (x-tally-sample-rate) ADDITION. Exits 1 when a declared version bump is smaller than \
            its changes require, a version goes backwards or an existing version was edited in place.

            Examples:
              tally schema diff plans-main plans-branch
              git worktree add /tmp/main main && tally schema diff /tmp/main/registry registry
            """
    )

    @Argument(help: "The registry before the change.")
    var old: String

    @Argument(help: "The registry after the change.")
    var new: String

    func run() throws {
        let before = try RegistryOption(registry: old).load()
        let after = try RegistryOption(registry: new).load()
        let diff = SchemaDiff(old: before, new: after)
        if diff.reports.isEmpty {
            Terminal.print("no changes")
            return
        }
        for report in diff.reports {
            let from = report.oldVersion?.description ?? "(new)"
            let to = report.newVersion?.description ?? "(removed)"
            let verdict = report.problem.map { "✗ \($0)" } ?? "✓"
            let required = report.requiredBump.map { "needs \($0)" } ?? "no bump needed"
            Terminal.print("\(report.name) \(from) → \(to): \(required)  \(verdict)")
            for change in report.changes { Terminal.print("    \(change)") }
        }
        let problems = diff.reports.filter { $0.problem != nil }.count
        if problems > 0 {
            // The ✗ lines say what each needs: a larger bump, a version that goes forward, a new
            // version instead of an edit in place.
            Terminal.error(
                "\(problems) event\(problems == 1 ? "" : "s") cannot be published as changed: see the ✗ above"
            )
            throw ExitCode.findings
        }
    }
}

extension RegistryOption {
    init(registry: String) {
        self.init()
        self.registry = registry
    }
}
