import ArgumentParser
import TallyCore
import TallyOperations
import TallySchema

/// `tally schema show EVENT`.
struct SchemaShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show the effective schema of an event (its latest version unless --version).",
        discussion: """
            Examples:
              tally schema show episode_list_episode_selected --registry Examples/registry
              tally schema show episode_detail_play_tapped --version 1-0-0 --registry Examples/registry
            """
    )

    @Argument(help: "The event name.")
    var event: String

    @Option(name: .long, help: "A SchemaVer version such as 1-0-0 (default: the latest).")
    var version: String?

    @OptionGroup var registry: RegistryOption

    func validate() throws {
        if let version, SchemaVer(version) == nil {
            throw ValidationError("--version must be a SchemaVer such as 1-0-0, not \(version.debugDescription).")
        }
    }

    func run() throws {
        let loaded = try registry.load()
        let requested = version.flatMap(SchemaVer.init)
        guard let schema = loaded.event(event, version: requested) else {
            let known = loaded.versions(of: event).map(\.version.description)
            if known.isEmpty {
                let similar = loaded.eventNames.filter { $0.contains(event) || event.contains($0) }.prefix(5)
                Terminal.error(
                    "no event \(event) in the registry"
                        + (similar.isEmpty ? "" : "; did you mean \(similar.joined(separator: ", "))?")
                )
            } else {
                Terminal.error("\(event) has no version \(version ?? ""); registered: \(known.joined(separator: ", "))")
            }
            throw ExitCode.findings
        }
        let versions = loaded.versions(of: event).map(\.version.description).joined(separator: ", ")
        Terminal.print("event:       \(schema.name)")
        Terminal.print("feature:     \(schema.feature)  (screen \(schema.screen))")
        Terminal.print("version:     \(schema.version)  (registered: \(versions))")
        Terminal.print("description: \(schema.description)")
        if let file = schema.file { Terminal.print("declared in: \(file) \(schema.path)") }
        Terminal.print("properties:")
        Terminal.print(JSONWriter.text(schema.properties.source, pretty: true))
    }
}
