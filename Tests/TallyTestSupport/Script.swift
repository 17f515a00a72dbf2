import Foundation

/// Runs a shell script of the repository (scripts/pg-cluster.sh …) and waits for it with
/// `waitpid` on a thread of its own (``offCooperativePool(_:)``), from the repository root.
///
/// Not `Process`: scripts that start daemons (pg_ctl) sometimes leave Foundation's `Process` on
/// Linux waiting for a child that has long exited (seen as a `<defunct>` bash here).
public enum Script {
    /// Runs `arguments` (`arguments[0]` relative to the repository root) with bash; returns the
    /// exit status and what it wrote. A script still running after `timeout` is killed (status -1).
    public static func run(
        _ arguments: [String],
        environment: [String: String] = [:],
        timeout: Duration = .seconds(120)
    ) async throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try await offCooperativePool { try blockingRun(arguments, environment: environment, timeout: timeout) }
    }

    /// ``run(_:environment:timeout:)`` blocking the calling thread: for `defer` blocks, which cannot
    /// await (a short cleanup such as stopping a cluster), never for the body of a test.
    public static func blockingRun(
        _ arguments: [String],
        environment: [String: String] = [:],
        timeout: Duration = .seconds(120)
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let root = ConformanceData.repositoryRoot?.path ?? FileManager.default.currentDirectoryPath
        let scratch = NSTemporaryDirectory() + "tally-script-" + UUID().uuidString
        defer {
            try? FileManager.default.removeItem(atPath: scratch + ".out")
            try? FileManager.default.removeItem(atPath: scratch + ".err")
        }
        let command = #"cd "$1" && shift && exec bash "$@" </dev/null >"# + "'\(scratch).out' 2>'\(scratch).err'"
        let argv = ["/bin/bash", "-c", command, "bash", root] + arguments
        var pid: pid_t = 0
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        let variables = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        var cEnvironment = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in cEnvironment { free(pointer) } }
        let spawned = posix_spawn(&pid, "/bin/bash", nil, nil, &cArguments, &cEnvironment)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        var timedOut = false
        while waitpid(pid, &status, WNOHANG) == 0 {
            if ContinuousClock.now > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                timedOut = true
                break
            }
            usleep(20_000)
        }
        let output = (try? String(contentsOfFile: scratch + ".out", encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOfFile: scratch + ".err", encoding: .utf8)) ?? ""
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -(status & 0x7f)
        return (timedOut ? -1 : exitStatus, output, errors)
    }
}
