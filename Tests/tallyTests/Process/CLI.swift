import Foundation
import TallyTestSupport

/// The `tally` binary as a user runs it, in an environment without a database or data directory
/// of the developer's shell (a `DATABASE_URL` left by deploy/local/postgres.sh would change what
/// `tally summary` reads).
enum CLI {
    typealias Output = (status: Int32, stdout: String, stderr: String)

    /// Variables that choose a store, cleared unless a test sets them.
    static let cleanEnvironment = ["DATABASE_URL": "", "PGHOST": "", "PGDATABASE": "", "TALLY_DATA_DIR": ""]

    /// A PostgreSQL URL nothing listens on: a database that is down.
    static let downDatabase = "postgresql://tally@127.0.0.1:1/analytics?connect_timeout=5"

    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Output {
        try await ChildProcess(
            "tally",
            arguments: arguments,
            environment: cleanEnvironment.merging(environment) { _, new in new }
        ).wait(timeout: .seconds(300))
    }

    static func temporaryDirectory(_ label: String) throws -> String {
        let directory = NSTemporaryDirectory() + "tally-\(label)-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    static func json(_ text: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
    }

    static func write(_ lines: [String], to path: String) throws {
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// A valid tally line.
    static func event(
        _ name: String = "episode_list_viewed",
        at time: String = "2026-11-22T10:00:00Z",
        user: String = "u1"
    )
        -> String
    {
        #"{"name":"\#(name)","occurred_at":"\#(time)","feature":"episode","user_id":"\#(user)"}"#
    }

    /// A file store holding `lines` (ingested with the binary); returns its directory.
    static func store(_ lines: [String], in directory: String) async throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let input = directory + "/input.ndjson"
        try write(lines, to: input)
        let data = directory + "/data"
        let result = try await run(["ingest", input, "--data-dir", data, "--quiet"])
        guard result.status == 0 else { throw StoreError(message: result.stderr) }
        return data
    }

    struct StoreError: Error { var message: String }
}
