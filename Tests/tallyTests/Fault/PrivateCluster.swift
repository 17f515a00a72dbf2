import Foundation
import TallyTestSupport

/// A PostgreSQL cluster of a test's own, through scripts/pg-cluster.sh: tests that restart or stop
/// the server must not disturb the shared test cluster the other suites use.
struct PrivateCluster {
    let directory: String
    let url: String

    /// A new running cluster; without the shared test cluster, fails or skips as
    /// `TestDatabase.adminURL` does.
    static func start() async throws -> PrivateCluster {
        _ = try TestDatabase.adminURL
        let directory = "/tmp/tally-fault-pg-" + UUID().uuidString.prefix(8).lowercased()
        let result = try await Script.run(["scripts/pg-cluster.sh", "start", directory])
        guard result.status == 0, let url = result.stdout.split(separator: "\n").last.map(String.init) else {
            throw ClusterError(message: "cannot start a private cluster: \(result.stderr)")
        }
        return PrivateCluster(directory: directory, url: url)
    }

    func restart(mode: String = "fast") async throws {
        try await run("restart", mode)
    }

    func stop() async throws {
        try await run("stop")
    }

    /// Stops the cluster and deletes its files (blocking: for `defer`).
    func remove() {
        _ = try? Script.blockingRun(["scripts/pg-cluster.sh", "stop", directory])
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func run(_ arguments: String...) async throws {
        let result = try await Script.run(["scripts/pg-cluster.sh", arguments[0], directory] + arguments.dropFirst())
        guard result.status == 0 else {
            throw ClusterError(message: "pg-cluster.sh \(arguments.joined(separator: " ")): \(result.stderr)")
        }
    }

    struct ClusterError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
