import ArgumentParser
import Foundation
import TallySchema
import TallyServer

/// `tally keys add|list`: the collector's write keys.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Make and list the collector's write keys (the keys file stores only their SHA-256).",
        subcommands: [Add.self, List.self]
    )

    /// `tally keys add`.
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a write key for a source: prints the key once on stdout; the file keeps its hash.",
            discussion: """
                The keys file is created with mode 0600 when missing. Give the key to the app or SDK (Segment: \
                the writeKey; PostHog: the api_key; tally: Authorization: Bearer KEY). It cannot be shown again: \
                make a new one if it is lost.
                """
        )

        @Option(name: .long, help: "The keys file.")
        var keys: String

        @Option(name: .long, help: "The source the key's events come from (ios-app).")
        var source: String

        @Option(name: .long, help: "The feature of events that name none and no plan claims.")
        var feature: String?

        @Option(name: .long, help: "A registry directory whose plans validate this key's events.")
        var registry: String?

        func validate() throws {
            guard !source.isEmpty, source.count <= 100 else {
                throw ValidationError("--source must be 1 to 100 characters.")
            }
            if let feature, let problem = NamingRules.problemWithSentName(feature) {
                throw ValidationError("--feature \(problem)")
            }
            if let registry, !RegistryOption.isDirectory(registry) {
                throw ValidationError("--registry \(registry): not a directory (the plans `tally serve` will load).")
            }
        }

        func run() throws {
            // Checked now rather than when `tally serve` starts and refuses the keys file.
            if let registry { _ = try RegistryOption.load(directory: registry) }
            var file = WriteKeysFile()
            if FileManager.default.fileExists(atPath: keys) {
                do {
                    file = try WriteKeysFile.load(keys)
                } catch {
                    throw CommandFailure(
                        .dataError,
                        "cannot read the keys file \(keys): \(FileErrorText.describe(error))"
                    )
                }
            }
            let key = WriteKeysFile.makeKey()
            file.keys.append(
                WriteKeysFile.Entry(
                    sha256: WriteKeysFile.hash(key),
                    source: source,
                    feature: feature,
                    // Absolute: `tally serve` reads a relative one from the keys file's directory,
                    // not from where this command ran and checked it.
                    registry: registry.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
                )
            )
            do {
                try file.save(keys)
            } catch {
                throw CommandFailure(
                    .cannotCreate,
                    "cannot write the keys file \(keys): \(FileErrorText.describe(error))"
                )
            }
            Terminal.print(key)
        }
    }

    /// `tally keys list`.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the sources of the keys (never the keys).")

        @Option(name: .long, help: "The keys file.")
        var keys: String

        func run() throws {
            let file: WriteKeysFile
            do {
                file = try WriteKeysFile.load(keys)
            } catch  where FileErrorText.isMissingFile(error) {
                throw CommandFailure(.noInput, "no keys file at \(keys); `tally keys add --keys \(keys)` makes one")
            } catch {
                throw CommandFailure(.dataError, "cannot read the keys file \(keys): \(FileErrorText.describe(error))")
            }
            guard !file.keys.isEmpty else {
                Terminal.error("no keys in \(keys); `tally keys add --keys \(keys) --source NAME` makes one")
                return
            }
            for entry in file.keys {
                var line = entry.source
                if let feature = entry.feature { line += "\tfeature=\(feature)" }
                if let registry = entry.registry { line += "\tregistry=\(registry)" }
                line += "\tsha256=\(entry.sha256.prefix(12))…"
                Terminal.print(line)
            }
        }
    }
}
