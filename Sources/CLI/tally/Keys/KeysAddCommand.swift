import ArgumentParser
import Foundation
import TallyOperations
import TallySchema
import TallyServer

/// `tally keys add`.
struct KeysAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract:
            "Make a key (a write key, or with --reader a dashboard key): prints it once; the file keeps its hash.",
        discussion: """
            The keys file is created with mode 0600 when missing (an existing one keeps its mode and owner). Give \
            the key to the app or SDK (Segment: the writeKey; PostHog: the api_key; tally: Authorization: Bearer \
            KEY). It cannot be shown again: make a new one if it is lost.

            A reader key (--reader) opens `tally dashboard` (Authorization: Bearer KEY, or HTTP Basic with the \
            key as the password) and nothing else; a write key never opens the dashboard.

            Examples:
              tally keys add --keys /etc/tally/keys.json --source ios-app --feature episode
              tally keys add --keys keys.json --source web --registry plans/web
              tally keys add --keys keys.json --source product-team --reader
            """
    )

    @OptionGroup var file: KeysFileOption

    @Option(name: .long, help: "The source the key's events come from (ios-app).")
    var source: String

    @Option(name: .long, help: "The feature of events that name none and no plan claims.")
    var feature: String?

    @Option(name: .long, help: "A registry directory whose plans validate this key's events.")
    var registry: String?

    @Flag(name: .long, help: "A reader key: it opens `tally dashboard`, never sends events.")
    var reader = false

    func validate() throws {
        guard !source.isEmpty, source.count <= 100 else {
            throw ValidationError("--source must be 1 to 100 characters.")
        }
        if let feature, let problem = NamingRules.problemWithSentName(feature) {
            throw ValidationError("--feature \(problem)")
        }
        if reader, feature != nil || registry != nil {
            throw ValidationError("--feature and --registry are for write keys; a --reader key only reads.")
        }
        if let registry, !RegistryOption.isDirectory(registry) {
            throw ValidationError("--registry \(registry): not a directory (the plans `tally serve` will load).")
        }
    }

    func run() throws {
        // Checked now rather than when `tally serve` starts and refuses the keys file.
        if let registry { _ = try RegistryOption.load(directory: registry) }
        var keys = FileManager.default.fileExists(atPath: file.keys) ? try file.read() : WriteKeysFile()
        let (key, entry) = keys.add(
            source: source,
            feature: feature,
            // Absolute: `tally serve` reads a relative one from the keys file's directory, not
            // from where this command ran and checked it.
            registry: registry.map { URL(fileURLWithPath: $0).standardizedFileURL.path },
            role: reader ? .reader : .write
        )
        try file.write(keys)
        Terminal.print(key)
        Terminal.error(
            "added the \(reader ? "reader" : "write") key \(entry.id) for \(source); "
                + (reader ? KeysFileAccess.dashboardHint : KeysFileAccess.reloadHint)
        )
    }
}
