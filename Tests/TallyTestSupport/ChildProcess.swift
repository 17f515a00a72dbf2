public import Foundation

/// Runs one of the package's executables as a child process, the way a user would.
public struct ChildProcess {
    /// The running process.
    public let process = Process()
    private let standardError = Pipe()
    private let standardOutput = Pipe()

    /// The directory of the built executables: next to the test bundle (`.build/debug`), or
    /// `$TALLY_BIN_DIR`.
    public static var binaryDirectory: URL {
        if let override = ProcessInfo.processInfo.environment["TALLY_BIN_DIR"] {
            return URL(fileURLWithPath: override)
        }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("episode-demo").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath + "/.build/debug")
    }

    /// Starts `executable` with `arguments` in the repository root (so relative paths such as
    /// `Examples/registry` work), with `environment` added to this process's own.
    public init(_ executable: String, arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = Self.binaryDirectory.appendingPathComponent(executable)
        process.arguments = arguments
        if let root = ConformanceData.repositoryRoot { process.currentDirectoryURL = root }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.standardError = standardError
        process.standardOutput = standardOutput
        try process.run()
    }

    /// Sends `signal` to the process.
    public func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the exit and returns the status with everything written to stdout and stderr.
    public func wait() -> (status: Int32, stdout: String, stderr: String) {
        // Read before waiting, so that a full pipe cannot stall the child.
        let output = standardOutput.fileHandleForReading.readDataToEndOfFile()
        let errors = standardError.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self)
        )
    }
}
