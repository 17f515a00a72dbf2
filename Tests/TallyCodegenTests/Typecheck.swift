import Foundation
import TallyCodegen
import TallySchema
import TallyTestSupport

/// Generated code put through the real compiler: `swiftc -typecheck` against the built `Tracking`
/// module, in Swift 6 mode (strict concurrency).
enum Typecheck {
    /// The compiler's verdict on `files` (paths), with `sources` (name → code) written beside them.
    static func run(_ files: [String], sources: [String: String] = [:]) async throws -> (status: Int32, output: String)
    {
        let directory = NSTemporaryDirectory() + "tally-typecheck-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var paths = files
        for (name, code) in sources {
            let path = directory + "/" + name
            try code.write(toFile: path, atomically: true, encoding: .utf8)
            paths.append(path)
        }
        let modules = ChildProcess.binaryDirectory.appendingPathComponent("Modules").path
        let result = try await Script.run(
            ["-c", #"exec swiftc -typecheck -swift-version 6 -module-name Checked -I "$0" "$@" 2>&1"#, modules] + paths,
            timeout: .seconds(600)
        )
        return (result.status, result.stdout + result.stderr)
    }

    /// Generates the Swift files of the registry in `directory` into a new directory; returns their paths.
    static func generate(registry directory: String) throws -> [String] {
        let generator = SwiftCodeGenerator(registry: try SchemaRegistry.load(directory: directory))
        let output = NSTemporaryDirectory() + "tally-generated-" + UUID().uuidString
        _ = try generator.write(to: output)
        return generator.files.map { output + "/" + $0.name }
    }
}
