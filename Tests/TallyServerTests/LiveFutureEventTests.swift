import Foundation
import TallyCompression
import TallyPostgres
import TallyTestSupport
import Testing

/// An event dated 2099 sent twice to a live `tally serve`, a second apart: placed at its receipt,
/// stored once at the first placement, the device's time kept, counted in the metrics.
@Suite("tally serve, events from the future", .serialized)
struct LiveFutureEventTests {
    @Test("a re-sent event from the future is one row at its first placement")
    func resentFutureEvent() async throws {
        let database = try await TestDatabase.create()
        let server = try await LiveServeTests.start(database)
        defer { try? FileManager.default.removeItem(atPath: server.work) }
        let line =
            #"{"event_id":"0190c5a2-0000-7000-8000-000000002099","name":"episode_list_viewed","occurred_at":"2099-01-01T10:00:00.000Z","sent_at":"2099-01-01T10:00:05.000Z","user_id":"u1"}"#
            + "\n"
        let body = server.work + "/future.gz"
        try Data(Deflater.compress(Array(line.utf8), format: .gzip)).write(to: URL(fileURLWithPath: body))
        await #expect(try LiveServeTests.post(server, body, authorization: "Bearer \(server.key)") == 200)
        try await Task.sleep(for: .milliseconds(1100))
        await #expect(try LiveServeTests.post(server, body, authorization: "Bearer \(server.key)") == 200)
        let connection = try await PostgresConnection.connect(database.url)
        let rows = try await connection.query(
            """
            SELECT count(*), bool_and(occurred_at < now() AND occurred_at > now() - interval '1 minute')::text,
                   (min(device_occurred_at) = '2099-01-01T10:00:00Z')::text,
                   bool_and(corrected_at = occurred_at)::text,
                   (SELECT count(*) FROM tally.skewed_events),
                   (SELECT count(*) FROM pg_inherits WHERE inhparent = 'tally.events'::regclass)
            FROM tally.events
            """
        )
        await connection.close()
        #expect(rows[0][0] == "1", "stored once")
        #expect(rows[0][1] == "true", "placed at its receipt, not in 2099")
        #expect(rows[0][2] == "true", "the device's time kept")
        #expect(rows[0][3] == "true", "placed at the corrected time (received − 5 s)")
        #expect(rows[0][4] == "1")
        #expect(rows[0][5] == "1", "no partition for 2099")
        let metrics = try await Script.run(["-c", #"curl -s "$1""#, "m", "http://127.0.0.1:\(server.port)/metrics"])
        #expect(metrics.stdout.contains("tally_collector_events_from_future_total 2"), "\(metrics.stdout)")
        server.child.signal(SIGTERM)
        #expect(await server.child.wait(timeout: .seconds(60)).status == 0)
        await database.drop()
    }
}
