import Foundation
import TallyCore
import TallyPipeline
import TallyPostgres
import TallyTestSupport
import Testing

/// `tally.failed_events` on a real server: rejects of every origin as rows (reason code, detail
/// with the origin, the event as one JSON value), committed together or not at all, and the rows of
/// the events the server refused written the same way.
@Suite("PostgreSQL reject sink")
struct PostgresRejectSinkTests {
    static let time = Timestamp(rfc3339: "2026-11-22T10:00:01.5Z")!

    static func event(_ index: Int) -> EventEnvelope {
        EventEnvelope(
            eventID: EventID(high: 0x0190_0000_0000_7000, low: 0x8000_0000_0000_0000 | UInt64(index)),
            name: "shop_viewed",
            feature: "shop",
            properties: ["sku": .string("sku-\(index)"), "quote": .string("it's \"quoted\"")],
            occurredAt: time,
            receivedAt: time,
            userID: "user-\(index)"
        )
    }

    static let rejects = [
        Reject(
            content: .event(event(1)),
            reason: Reject.Reason(code: "type_mismatch", path: "$.properties.sku", message: "expected integer"),
            origin: .request(id: "r-1", index: 3, source: "ios"),
            failedAt: time
        ),
        Reject(
            content: .bytes(Array(#"{"type":"track","event":"Order Completed"}"#.utf8)),
            reason: Reject.Reason(code: "missing_field", path: "$.timestamp", message: "required"),
            origin: .request(id: "r-2", index: 0, source: "web"),
            failedAt: time
        ),
        Reject(
            content: .nothing,
            reason: Reject.Reason(code: "malformed_json", path: "$", message: "not JSON"),
            origin: .request(id: "r-3", index: 0, source: "web"),
            failedAt: time
        ),
        Reject(
            content: .event(event(2)),
            reason: Reject.Reason(code: "timedOut", message: "PipelineError(timedOut): clickhouse write"),
            origin: .sink(name: "clickhouse", attempts: 5),
            failedAt: time
        ),
        Reject(
            content: .bytes(Array("not json\u{1}".utf8)),
            reason: Reject.Reason(code: "malformed_json", path: "$", message: "not JSON"),
            origin: .line(file: "export.ndjson", line: 7),
            failedAt: time
        ),
    ]

    static func database() async throws -> TestDatabase {
        let database = try await TestDatabase.create()
        let migrate = try await TestDatabase.tally(["migrate", "--database-url", database.url])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        return database
    }

    /// `failed_at`, `event_id`, `reason`, `detail`, `event` of every row, in order.
    static func rows(_ url: String) async throws -> PostgresConnection.Rows {
        let connection = try await PostgresConnection.connect(url)
        let rows = try await connection.query(
            """
            SELECT to_char(failed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), event_id::text, reason,
                   detail, event
            FROM tally.failed_events ORDER BY id
            """
        )
        await connection.close()
        return rows
    }

    @Test("every origin as a row: failed_at, event id, reason code, detail with the origin, the event")
    func rowsOfEveryOrigin() async throws {
        let database = try await Self.database()
        let sink = PostgresRejectSink(conninfo: database.url)
        #expect(await sink.isReachable())
        try await sink.store(Self.rejects)
        try await sink.store([])
        await sink.close()
        let rows = try await Self.rows(database.url)
        #expect(rows.count == Self.rejects.count)
        for (row, reject) in zip(rows, Self.rejects) {
            #expect(row[0] == "2026-11-22T10:00:01.500000Z")
            #expect(row[1] == reject.event?.eventID.description)
            #expect(row[2] == reject.reason.code)
            #expect(row[3] == reject.detail)
            #expect(row[4] == String(decoding: reject.eventJSON, as: UTF8.self))
        }
        // As the suites and the dashboard read them.
        let connection = try await PostgresConnection.connect(database.url)
        let json = try await connection.query("SELECT count(*) FROM tally.failed_events WHERE event::jsonb IS NOT NULL")
        await connection.close()
        #expect(json.first?.first == "\(Self.rejects.count)")
        #expect(rows[0][3] == "request r-1 index 3 source ios at $.properties.sku: expected integer")
        #expect(rows[0][4] == String(decoding: Self.event(1).ndjsonLine.dropLast(), as: UTF8.self))
        #expect(rows[1][4] == #"{"type":"track","event":"Order Completed"}"#)
        #expect(rows[2][4] == "null")
        #expect(rows[3][3] == "PipelineError(timedOut): clickhouse write")
        #expect(rows[4][3] == "export.ndjson:7 at $: not JSON")
        await database.drop()
    }

    @Test("a store that fails keeps none of its rejects; the sink reconnects for the next")
    func allOrNothing() async throws {
        let database = try await Self.database()
        let sink = PostgresRejectSink(conninfo: database.url)
        let admin = try await PostgresConnection.connect(database.url)
        // The third row breaks a constraint: the two before it are rolled back with it.
        try await admin.execute(
            "ALTER TABLE tally.failed_events ADD CONSTRAINT no_timeouts CHECK (reason <> 'timedOut')"
        )
        let error = await #expect(throws: PostgresError.self) { try await sink.store(Self.rejects) }
        #expect(error?.sqlState == "23514")
        #expect(try await Self.rows(database.url).isEmpty)
        try await admin.execute("ALTER TABLE tally.failed_events DROP CONSTRAINT no_timeouts")
        await admin.close()
        try await sink.store(Self.rejects)
        #expect(try await Self.rows(database.url).count == Self.rejects.count)
        await sink.close()
        await database.drop()
    }

    @Test("a database that cannot be reached: store throws, readiness says no")
    func unreachable() async throws {
        let sink = PostgresRejectSink(conninfo: "postgresql://tally@127.0.0.1:1/none?connect_timeout=2")
        #expect(await sink.isReachable() == false)
        await #expect(throws: PostgresError.self) { try await sink.store(Self.rejects) }
    }

    @Test("an event the server refuses is kept by the sink as a reject row of its own")
    func refusedByTheServer() async throws {
        let database = try await Self.database()
        let sink = PostgresSink(conninfo: database.url)
        var events = (10..<15).map(Self.event)
        events[2].properties["sku"] = .string("nul \u{0} byte")
        try await sink.write(events)
        try await sink.shutdown()
        #expect(await sink.failed == 1)
        let rows = try await Self.rows(database.url)
        #expect(rows.count == 1)
        #expect(rows.first?[1] == events[2].eventID.description)
        #expect(rows.first?[2]?.hasPrefix("postgres_22") == true, "\(rows)")
        #expect(rows.first?[3]?.isEmpty == false, "the server's report")
        #expect(rows.first?[4] == String(decoding: events[2].ndjsonLine.dropLast(), as: UTF8.self))
        #expect(try await TestDatabase.eventCount(database.url) == 4)
        await database.drop()
    }
}
