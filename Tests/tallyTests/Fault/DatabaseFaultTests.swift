import Foundation
import TallyPostgres
import TallyTestSupport
import Testing

/// PostgreSQL restarted, stopped or unreachable while `tally ingest` runs, on a cluster of the
/// test's own: the ingest completes exactly after reconnecting, or fails with a clear message and
/// a documented exit code, never reporting a partial load as success.
@Suite("Database faults", .serialized)
struct DatabaseFaultTests {
    static func ingest(_ input: String, _ url: String, _ data: String) throws -> ChildProcess {
        try ChildProcess(
            "tally",
            arguments: [
                "ingest", input, "--registry", "Examples/registry", "--store", "postgres", "--database-url", url,
                "--data-dir", data, "--quiet", "--report", "json",
            ]
        )
    }

    static func input(_ work: String, events: Int) async throws -> String {
        let path = work + "/events.ndjson"
        let generated = try await TestDatabase.tally(["generate", "--events", "\(events)", "--bad-every", "1000"])
        try generated.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("a fast restart in the middle of an ingest: it reconnects, retries and loads exactly")
    func restartMidIngest() async throws {
        let cluster = try await PrivateCluster.start()
        defer { cluster.remove() }
        let work = cluster.directory + "/work"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let input = try await Self.input(work, events: 300_000)
        #expect(try await TestDatabase.tally(["migrate", "--database-url", cluster.url]).status == 0)

        let child = try Self.ingest(input, cluster.url, work + "/data")
        let before = try await TestDatabase.waitForRows(cluster.url)
        try await cluster.restart(mode: "fast")
        let result = await child.wait(timeout: .seconds(300))
        #expect(result.status == 0, "\(result.stderr)")
        let report = StoreChecks.report(result.stdout)
        let accepted = try #require(report["accepted"] as? Int)
        #expect(before > 0 && before < accepted, "the restart came mid-load (\(before) rows before it)")
        #expect(result.stderr.contains("retrying"), "the failure was seen and retried: \(result.stderr)")
        #expect(try await TestDatabase.eventCount(cluster.url) == accepted)
        #expect(report["not_stored"] as? Int == 0)
        try await StoreChecks.expectDerivedTablesExact(cluster.url)
    }

    @Test("the server down at start: exit 69 at once, a clear message, nothing read")
    func unreachableAtStart() async throws {
        let cluster = try await PrivateCluster.start()
        defer { cluster.remove() }
        #expect(try await TestDatabase.tally(["migrate", "--database-url", cluster.url]).status == 0)
        try await cluster.stop()
        let work = cluster.directory + "/work"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let input = try await Self.input(work, events: 100)
        let started = ContinuousClock.now
        let result = try await Self.ingest(input, cluster.url, work + "/data").wait(timeout: .seconds(60))
        #expect(result.status == 69)
        #expect(ContinuousClock.now - started < .seconds(20))
        #expect(result.stderr.contains("cannot connect to the database"), "\(result.stderr)")
        #expect(!result.stderr.contains(TestSecrets.password(in: cluster.url)))
        #expect(result.stdout.isEmpty, "no report: nothing was read")
    }

    @Test("the server stops for good mid-ingest: exit 74, unstored events dead-lettered, a re-run completes it")
    func stoppedMidIngest() async throws {
        let cluster = try await PrivateCluster.start()
        defer { cluster.remove() }
        let work = cluster.directory + "/work"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let input = try await Self.input(work, events: 100_000)
        #expect(try await TestDatabase.tally(["migrate", "--database-url", cluster.url]).status == 0)

        let child = try Self.ingest(input, cluster.url, work + "/data")
        _ = try await TestDatabase.waitForRows(cluster.url)
        try await cluster.stop()
        let result = await child.wait(timeout: .seconds(300))
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("could not be stored"), "\(result.stderr)")
        let report = StoreChecks.report(result.stdout)
        let notStored = try #require(report["not_stored"] as? Int)
        #expect(notStored > 0)
        // What was not stored is in the dead-letter files (one line per event), every event of it.
        let letters = try FileManager.default.contentsOfDirectory(atPath: work + "/data/dead-letter")
        var dead = 0
        for name in letters {
            let text = try String(contentsOfFile: work + "/data/dead-letter/" + name, encoding: .utf8)
            for line in text.split(separator: "\n") {
                let letter = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                if letter?["sink"] as? String == "postgres", letter?["event"] != nil { dead += 1 }
            }
        }
        #expect(dead == notStored)

        // Back up: the same command finishes the load exactly.
        try await cluster.restart()
        let rerun = try await Self.ingest(input, cluster.url, work + "/data").wait(timeout: .seconds(300))
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let accepted = try #require(StoreChecks.report(rerun.stdout)["accepted"] as? Int)
        #expect(try await TestDatabase.eventCount(cluster.url) == accepted)
        try await StoreChecks.expectDerivedTablesExact(cluster.url)
    }
}
