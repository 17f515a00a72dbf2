import Foundation
import TallyCore
import TallyPostgres
import TallyTestSupport
import Testing

/// `tally ingest` of an event dated 2099: placed at its receipt in both stores, the device's time
/// kept; ingested again later it is still one event on one day; the file store's copy loaded into
/// PostgreSQL after it takes the same place.
@Suite("Events from the future, ingested", .serialized)
struct FutureEventTests {
    static let line = #"{"name":"episode_list_viewed","occurred_at":"2099-06-01T00:00:00Z","user_id":"u1"}"#

    static func scratch() throws -> String {
        let directory = NSTemporaryDirectory() + "tally-future-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try (line + "\n").write(toFile: directory + "/future.ndjson", atomically: true, encoding: .utf8)
        return directory
    }

    @Test("the file store: one day file of today, the same day for a later run, counted once")
    func fileStore() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let data = directory + "/data"
        let first = try await TestDatabase.tally(["ingest", directory + "/future.ndjson", "--data-dir", data])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("placed at receipt: 1 event from the future"), "\(first.stdout)")
        let files = try FileManager.default.contentsOfDirectory(atPath: data + "/events")
        #expect(files == ["events-\(Timestamp.now().utcDate.isoString).ndjson"], "\(files)")
        try await Task.sleep(for: .milliseconds(1_100))
        let second = try await TestDatabase.tally([
            "ingest", directory + "/future.ndjson", "--data-dir", data, "--report", "json",
        ])
        #expect(second.stdout.contains(#""future_placed":1"#), "\(second.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: data + "/events") == files)
        let lines = try String(contentsOfFile: data + "/events/" + files[0], encoding: .utf8)
            .split(separator: "\n").map { try EventEnvelope(ndjsonLine: Array($0.utf8)) }
        #expect(lines.count == 2)
        #expect(lines[0].occurredAt == lines[1].occurredAt, "the second copy takes the first placement")
        #expect(lines[0].receivedAt != lines[1].receivedAt)
        #expect(lines.allSatisfy { $0.deviceOccurredAt == Timestamp(rfc3339: "2099-06-01T00:00:00Z") })
        let summary = try await TestDatabase.tally(["summary", "--data-dir", data, "--format", "json"])
        #expect(summary.stdout.contains(#""events":1"#), "\(summary.stdout)")
    }

    @Test("PostgreSQL: ingested twice and then the file store's copy: one row, no 2099 partition")
    func postgres() async throws {
        let database = try await TestDatabase.create()
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try await TestDatabase.tally(["migrate", "--database-url", database.url]).status == 0)
        let sink = ["--store", "postgres", "--database-url", database.url, "--data-dir", directory + "/data"]
        let first = try await TestDatabase.tally(["ingest", directory + "/future.ndjson"] + sink)
        #expect(first.status == 0, "\(first.stderr)")
        try await Task.sleep(for: .milliseconds(1100))
        let second = try await TestDatabase.tally(["ingest", directory + "/future.ndjson"] + sink)
        #expect(second.stdout.contains("postgres: 0 new, 1 duplicates skipped"), "\(second.stdout)")
        // The file store placed its own copy a moment later; loaded into PostgreSQL, it takes the
        // place PostgreSQL gave the event first.
        try await Task.sleep(for: .milliseconds(1100))
        let files = directory + "/files"
        #expect(
            try await TestDatabase.tally(["ingest", directory + "/future.ndjson", "--data-dir", files]).status == 0
        )
        let copy = try FileManager.default.contentsOfDirectory(atPath: files + "/events").map {
            files + "/events/" + $0
        }
        let third = try await TestDatabase.tally(["ingest"] + copy + sink)
        #expect(third.stdout.contains("postgres: 0 new, 1 duplicates skipped"), "\(third.stdout)")
        let connection = try await PostgresConnection.connect(database.url)
        let rows = try await connection.query(
            """
            SELECT count(*), (min(device_occurred_at) = '2099-06-01T00:00:00Z')::text, (SELECT count(*) FROM tally.skewed_events),
                   (SELECT count(*) FROM pg_inherits WHERE inhparent = 'tally.events'::regclass),
                   (SELECT sum(events) FROM tally.rollup_hourly)
            FROM tally.events
            """
        )
        await connection.close()
        #expect(rows[0][0] == "1")
        #expect(rows[0][1] == "true", "the device's time kept")
        #expect(rows[0][2] == "1")
        #expect(rows[0][3] == "1", "only this month's partition")
        #expect(rows[0][4] == "1", "the rollups count it once")
        await database.drop()
    }
}
