import Foundation
import TallyCore
import TallyTestSupport
import Testing

/// `kill -9` of a real `tally ingest` into PostgreSQL and the file store at seeded random
/// moments, then a re-run: the stores hold exactly the distinct valid events.
@Suite("Crash and re-run", .serialized)
struct CrashRecoveryTests {
    /// Seeded from `$TALLY_FAULT_SEED` to replay a failure; random otherwise (printed either way).
    static let seed: UInt64 =
        ProcessInfo.processInfo.environment["TALLY_FAULT_SEED"].flatMap { UInt64($0) }
        ?? UInt64.random(in: 1...999_999)

    @Test("kill -9 at 10 random points, then a re-run: exact counts, rollups, user sets and summaries")
    func killAndRerun() async throws {
        let database = try await TestDatabase.create()
        let scratch = try await TestDatabase.create()
        let work = NSTemporaryDirectory() + "tally-crash-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let input = work + "/events.ndjson"
        let generated = try await TestDatabase.tally([
            "generate", "--events", "100000", "--bad-every", "997", "--seed", "\(Self.seed)",
        ])
        try generated.stdout.write(toFile: input, atomically: true, encoding: .utf8)
        for url in [database.url, scratch.url] {
            #expect(try await TestDatabase.tally(["migrate", "--database-url", url]).status == 0)
        }
        func ingest(_ url: String, _ data: String) async throws -> ChildProcess {
            try ChildProcess(
                "tally",
                arguments: [
                    "ingest", input, "--registry", "Examples/registry", "--store", "postgres", "--store", "file",
                    "--database-url", url, "--data-dir", data, "--quiet", "--report", "json",
                ]
            )
        }

        // How long an uninterrupted run takes here, to spread the kills over it.
        let started = ContinuousClock.now
        let calibration = try await ingest(scratch.url, work + "/scratch").wait(timeout: .seconds(300))
        #expect(calibration.status == 0, "\(calibration.stderr)")
        let duration = ContinuousClock.now - started
        let expected = try #require(StoreChecks.report(calibration.stdout)["accepted"] as? Int)

        var random = SplitMix64(seed: Self.seed)
        var points: [Duration] = []
        for _ in 0..<10 {
            let fraction = Double(random.next() % 1_000) / 1_000
            points.append(duration * (0.05 + 0.9 * fraction))
        }
        // Earliest first: each run stores more of the file, so a late first kill could let the whole
        // load finish before any kill lands (seen when the calibration run was slower than the
        // runs after it on a busy machine), and no kill would test a half-written load.
        points.sort()
        print("crash test: seed \(Self.seed) (TALLY_FAULT_SEED replays it), full run \(duration), kills at \(points)")
        let data = work + "/data"
        var stored: [Int] = []
        for point in points {
            let child = try await ingest(database.url, data)
            // A sleep on a thread of its own: exact even when other tests keep the cooperative threads busy.
            let microseconds = useconds_t(
                point.components.seconds * 1_000_000 + point.components.attoseconds / 1_000_000_000_000
            )
            _ = await offCooperativePool { usleep(microseconds) }
            child.signal(SIGKILL)
            _ = await child.wait(timeout: .seconds(60))
            stored.append(try await TestDatabase.eventCount(database.url))
            // Whatever is committed is consistent at every point, not only at the end.
            try await StoreChecks.expectDerivedTablesExact(database.url)
        }
        print("crash test: events stored after each kill: \(stored)")
        #expect(stored.contains { $0 > 0 && $0 < expected }, "some kills landed mid-load")

        let rerun = try await ingest(database.url, data).wait(timeout: .seconds(300))
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(StoreChecks.report(rerun.stdout)["accepted"] as? Int == expected)
        #expect(try await TestDatabase.eventCount(database.url) == expected)
        try await StoreChecks.expectDerivedTablesExact(database.url)
        try await StoreChecks.expectSummariesAgree(url: database.url, dataDirectory: data)
        // And the same as the uninterrupted run.
        try await StoreChecks.expectSummariesAgree(url: scratch.url, dataDirectory: data)
    }
}
