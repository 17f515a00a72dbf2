import Foundation
import TallyFileStore
import TallyTestSupport
import Testing

/// SIGTERM and SIGINT to `tally ingest` loading into PostgreSQL and the file store: it stops
/// reading, stores everything it accepted, reports it, and exits 75 within a bounded time.
@Suite("Graceful shutdown of an ingest", .serialized)
struct IngestSignalTests {
    @Test("everything accepted is stored in both sinks", arguments: [SIGTERM, SIGINT])
    func signalDuringIngest(signal: Int32) async throws {
        let database = try await TestDatabase.create()
        let work = NSTemporaryDirectory() + "tally-signal-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let generated = try await TestDatabase.tally(["generate", "--events", "200000"])
        try generated.stdout.write(toFile: work + "/events.ndjson", atomically: true, encoding: .utf8)
        #expect(try await TestDatabase.tally(["migrate", "--database-url", database.url]).status == 0)

        let child = try ChildProcess(
            "tally",
            arguments: [
                "ingest", work + "/events.ndjson", "--store", "postgres", "--store", "file", "--database-url",
                database.url, "--data-dir", work + "/data", "--quiet", "--report", "json",
            ]
        )
        _ = try await TestDatabase.waitForRows(database.url)
        child.signal(signal)
        let signalled = ContinuousClock.now
        let result = await child.wait(timeout: .seconds(60))
        #expect(ContinuousClock.now - signalled < .seconds(10), "exits within a bounded time")
        #expect(result.status == 75, "\(result.stderr)")
        let report = StoreChecks.report(result.stdout)
        let accepted = try #require(report["accepted"] as? Int)
        #expect(report["interrupted"] as? Bool == true)
        #expect(accepted > 0 && accepted < 200_000, "stopped mid-input")
        #expect(report["stored"] as? [String: Int] == ["file": accepted, "postgres": accepted])
        #expect(try await TestDatabase.eventCount(database.url) == accepted)
        let (events, store) = try FileStoreReader(directory: work + "/data").readAll()
        #expect(events.count == accepted && Set(events.map(\.eventID)).count == accepted)
        #expect(store.tornLines == 0)
        try await StoreChecks.expectDerivedTablesExact(database.url)
    }
}
