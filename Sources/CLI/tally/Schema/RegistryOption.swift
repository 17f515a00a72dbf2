import ArgumentParser
import Foundation
import TallyOperations
import TallySchema

/// `--registry DIR`, defaulting to `$TALLY_REGISTRY`.
struct RegistryOption: ParsableArguments {
    @Option(name: .long, help: "The registry directory (default: $TALLY_REGISTRY).")
    var registry: String?

    /// The directory to use.
    func directory() throws -> String {
        if let registry { return registry }
        if let environment = ProcessInfo.processInfo.environment["TALLY_REGISTRY"], !environment.isEmpty {
            return environment
        }
        throw ValidationError("No registry: pass --registry DIR or set TALLY_REGISTRY.")
    }

    /// Loads the registry, printing every problem to stderr and exiting 65 when there are any (64
    /// when there is no such directory).
    func load() throws -> SchemaRegistry {
        try Self.load(directory: directory())
    }

    /// Loads the registry in `directory`, with the same messages and exit code as ``load()``.
    static func load(directory: String) throws -> SchemaRegistry {
        try checkDirectory(directory)
        do {
            return try SchemaRegistry.load(directory: directory)
        } catch {
            Terminal.error("the registry \(directory) has problems:")
            for problem in error.problems { Terminal.error("  \(problem)") }
            throw ExitCode.dataError
        }
    }

    /// Exits 64 (a missing input, as for `tally ingest`) when `directory` is not there or not a
    /// directory.
    static func checkDirectory(_ directory: String) throws {
        var isDirectory: ObjCBool = false
        // A missing input is a usage error (64), as for `tally ingest` and `tally keys add --registry`.
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw CommandFailure(
                .usage,
                "the registry \(directory) does not exist (a directory of tracking plans, *.json)"
            )
        }
        guard isDirectory.boolValue else {
            throw CommandFailure(.usage, "the registry \(directory) is not a directory (of tracking plans, *.json)")
        }
    }

    /// Whether `path` is a directory (that exists).
    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
