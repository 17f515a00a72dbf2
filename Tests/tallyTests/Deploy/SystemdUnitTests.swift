import Foundation
import TallyTestSupport
import Testing

/// The ExecStart line of deploy/systemd/tally-ingest.service, run with the unit's environment
/// file's variables against the test database, on a temporary spool.
@Suite("deploy/systemd", .serialized)
struct SystemdUnitTests {
    static let installedScript = "/usr/local/lib/tally/tally-spool-ingest"
    static let installedSpool = "/var/spool/tally"

    /// The unit's `Key=value` lines.
    static func unit(_ name: String) throws -> [String: String] {
        let text = try String(contentsOfFile: TestDatabase.repository + "/deploy/systemd/" + name, encoding: .utf8)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && line.contains("=") {
            let parts = line.split(separator: "=", maxSplits: 1)
            values[String(parts[0])] = String(parts[1])
        }
        return values
    }

    @Test("ExecStart ingests finished files into done/, too many rejects into failed/, and retries on an outage")
    func execStartRunsTheSpool() async throws {
        let database = try await TestDatabase.create()
        #expect(try await TestDatabase.tally(["migrate", "--database-url", database.url]).status == 0)
        let service = try Self.unit("tally-ingest.service")
        #expect(service["EnvironmentFile"] == "/etc/tally/tally.env")
        #expect(service["User"] == "tally")
        let path = try Self.unit("tally-ingest.path")
        #expect(path["DirectoryNotEmpty"] == Self.installedSpool + "/incoming")
        let execStart = try #require(service["ExecStart"])
        #expect(execStart.hasPrefix(Self.installedScript + " "))

        let spool = NSTemporaryDirectory() + "tally-spool-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: spool) }
        try FileManager.default.createDirectory(atPath: spool + "/incoming", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: TestDatabase.repository + "/Examples/sample/events.ndjson",
            toPath: spool + "/incoming/events.ndjson"
        )
        try String(repeating: "not json\n", count: 20).write(
            toFile: spool + "/incoming/broken.ndjson",
            atomically: true,
            encoding: .utf8
        )
        try "{}".write(toFile: spool + "/incoming/.upload.ndjson.part", atomically: true, encoding: .utf8)
        let command = execStart.replacingOccurrences(
            of: Self.installedScript,
            with: TestDatabase.repository + "/deploy/systemd/tally-spool-ingest"
        ).replacingOccurrences(of: Self.installedSpool, with: spool)
        // The variables of tally.env.example, pointed at this test's database and directories.
        let environmentFile = try Self.unit("tally.env.example")
        var environment = environmentFile
        environment["DATABASE_URL"] = database.url
        environment["TALLY_REGISTRY"] = TestDatabase.repository + "/Examples/registry"
        environment["TALLY_DATA_DIR"] = spool + "/data"
        environment["TALLY_MAX_REJECTS"] = "15"  // the sample has 10 bad lines, broken.ndjson 20
        environment["TALLY"] = ChildProcess.binaryDirectory.appendingPathComponent("tally").path
        #expect(Set(environmentFile.keys).isSubset(of: Set(environment.keys)))

        let first = try await Script.run(["-c", command], environment: environment, timeout: .seconds(300))
        #expect(first.status == 1, "one file failed: \(first.stdout)\(first.stderr)")
        let files = FileManager.default
        #expect(files.fileExists(atPath: spool + "/done/events.ndjson"), "\(first.stdout)")
        #expect(files.fileExists(atPath: spool + "/done/events.rejects.ndjson"), "the sample's 10 bad lines")
        #expect(files.fileExists(atPath: spool + "/failed/broken.ndjson"))
        #expect(files.fileExists(atPath: spool + "/failed/broken.rejects.ndjson"))
        #expect(files.fileExists(atPath: spool + "/incoming/.upload.ndjson.part"), "unfinished uploads stay")
        #expect(try await TestDatabase.eventCount(database.url) == 4_000)

        // The database unreachable: the file goes back to incoming/ and the exit code says "later".
        try files.copyItem(atPath: spool + "/done/events.ndjson", toPath: spool + "/incoming/again.ndjson")
        environment["DATABASE_URL"] = "postgresql://nobody:secret@127.0.0.1:1/tally"
        let outage = try await Script.run(["-c", command], environment: environment, timeout: .seconds(120))
        #expect(outage.status == 69, "\(outage.stdout)\(outage.stderr)")
        #expect(service["SuccessExitStatus"]?.split(separator: " ").contains("69") == true)
        #expect(files.fileExists(atPath: spool + "/incoming/again.ndjson"))
        #expect(!outage.stderr.contains("secret"))
    }
}
