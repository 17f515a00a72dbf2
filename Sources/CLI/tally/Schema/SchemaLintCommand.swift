import ArgumentParser
import TallyOperations
import TallyReports
import TallySchema

/// `tally schema lint [DIR]`.
struct SchemaLintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check a registry: every problem is listed with its file and JSON path.",
        discussion: """
            Checks JSON syntax, supported keywords, patterns and formats, naming ({screen}_{action} in lowercase \
            snake_case, screens declared by the feature), SchemaVer versions, duplicates and colliding names \
            (`Episode Viewed` vs `episode_viewed`). Exits 1 when there is any problem, 64 when there is no such \
            directory.

            Examples:
              tally schema lint Examples/registry
              TALLY_REGISTRY=plans tally schema lint
            """
    )

    @Argument(help: "The registry directory (default: --registry, else $TALLY_REGISTRY).")
    var directory: String?

    @OptionGroup var registry: RegistryOption

    func run() throws {
        let directory = try self.directory ?? registry.directory()
        try RegistryOption.checkDirectory(directory)
        do {
            let loaded = try SchemaRegistry.load(directory: directory)
            let versions = loaded.eventNames.reduce(0) { $0 + loaded.versions(of: $1).count }
            Terminal.print(
                "ok: \(loaded.plans.count) plan\(loaded.plans.count == 1 ? "" : "s"), "
                    + "\(Plural.count(loaded.eventNames.count, "event")), \(Plural.count(versions, "version")) in \(directory)"
            )
        } catch {
            for problem in error.problems { Terminal.print(problem.description) }
            Terminal.error("\(error.problems.count) problem\(error.problems.count == 1 ? "" : "s") in \(directory)")
            throw ExitCode.findings
        }
    }
}
