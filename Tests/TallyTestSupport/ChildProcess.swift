public import Foundation
import TallyCore

/// Runs one of the package's executables as a child process, the way a user would.
///
/// Its waits suspend the calling task and block a thread of their own, never one of the
/// cooperative pool's (see ``offCooperativePool(_:)``).
public struct ChildProcess: @unchecked Sendable {  // Process and Pipe: one waiter at a time
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

    /// Starts `executable` (a name in ``binaryDirectory``, or an absolute path) with `arguments` in
    /// `directory`, else the repository root (so relative paths such as `Examples/registry` work),
    /// with `environment` added to this process's own, reading `standardInput` when given (this
    /// process's own stdin otherwise).
    public init(
        _ executable: String,
        arguments: [String],
        environment: [String: String] = [:],
        standardInput: Pipe? = nil,
        directory: String? = nil
    ) throws {
        process.executableURL =
            executable.hasPrefix("/")
            ? URL(fileURLWithPath: executable) : Self.binaryDirectory.appendingPathComponent(executable)
        process.arguments = arguments
        if let directory {
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
        } else if let root = ConformanceData.repositoryRoot {
            process.currentDirectoryURL = root
        }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        if let standardInput { process.standardInput = standardInput }
        process.standardError = standardError
        process.standardOutput = standardOutput
        try process.run()
    }

    /// Sends `signal` to the process.
    public func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Reads stderr until a line contains `text` and returns that line (nil at EOF or after
    /// `timeout`). What it read is no longer in ``wait(timeout:)``'s stderr.
    public func standardErrorLine(containing text: String, timeout: Duration = .seconds(60)) async -> String? {
        await offCooperativePool { blockingStandardErrorLine(containing: text, timeout: timeout) }
    }

    private func blockingStandardErrorLine(containing text: String, timeout: Duration) -> String? {
        let handle = standardError.fileHandleForReading
        let found = Locked<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            var buffer = ""
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                buffer += String(decoding: data, as: UTF8.self)
                if let line = buffer.split(separator: "\n").first(where: { $0.contains(text) }) {
                    found.withLock { $0 = String(line) }
                    break
                }
            }
            done.signal()
        }
        let (seconds, _) = timeout.components
        _ = done.wait(timeout: .now() + .seconds(Int(seconds)))
        return found.withLock { $0 }
    }

    /// ``wait(timeout:)``, and the instant the child had exited, taken on the waiting thread: a
    /// measure of how long a child takes to exit that does not include the time this task waits
    /// for a cooperative thread to resume on.
    public func waitForExit(
        timeout: Duration? = nil
    ) async -> (status: Int32, stdout: String, stderr: String, exitedAt: ContinuousClock.Instant) {
        await offCooperativePool {
            let (status, stdout, stderr) = blockingWait(timeout: timeout)
            return (status, stdout, stderr, ContinuousClock.now)
        }
    }

    /// Sends SIGTERM and returns at once; a thread of its own waits for the exit (SIGKILL after
    /// `timeout`), then runs `cleanup`. For `defer` blocks, which cannot await.
    public func terminate(timeout: Duration = .seconds(30), then cleanup: @escaping @Sendable () -> Void = {}) {
        signal(SIGTERM)
        Thread.detachNewThread {
            _ = blockingWait(timeout: timeout)
            cleanup()
        }
    }

    /// Waits for the exit and returns the status with everything written to stdout and stderr.
    ///
    /// With a `timeout`, a child still running after it is killed (SIGKILL) and the status is
    /// ``timedOutStatus``: a hang fails the test instead of stalling the suite.
    public func wait(timeout: Duration? = nil) async -> (status: Int32, stdout: String, stderr: String) {
        await offCooperativePool { blockingWait(timeout: timeout) }
    }

    private func blockingWait(timeout: Duration?) -> (status: Int32, stdout: String, stderr: String) {
        // Both pipes are drained at once, so that a full one cannot stall the child.
        let errors = Locked(Data())
        let drained = DispatchGroup()
        drained.enter()
        let errorHandle = standardError.fileHandleForReading
        DispatchQueue.global().async {
            let data = errorHandle.readDataToEndOfFile()
            errors.withLock { $0 = data }
            drained.leave()
        }
        let timedOut = Locked(false)
        if let timeout {
            let pid = process.processIdentifier
            let (seconds, attoseconds) = timeout.components
            let deadline =
                DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
            let process = self.process
            DispatchQueue.global().asyncAfter(deadline: deadline) {
                if process.isRunning {
                    timedOut.withLock { $0 = true }
                    kill(pid, SIGKILL)
                }
            }
        }
        let output = standardOutput.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        process.waitUntilExit()
        return (
            timedOut.withLock { $0 } ? Self.timedOutStatus : process.terminationStatus,
            String(decoding: output, as: UTF8.self),
            String(decoding: errors.withLock { $0 }, as: UTF8.self)
        )
    }

    /// The status ``wait(timeout:)`` returns for a child it had to kill.
    public static let timedOutStatus: Int32 = -1
}
