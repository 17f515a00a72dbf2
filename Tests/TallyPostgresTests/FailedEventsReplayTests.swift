import Foundation
import TallyCore
import TallyOperations
import TallyPostgres
import TallySchema
import TallyTestSupport
import Testing

/// `tally replay --failed-events` against a real server: each row replayed exactly once, what still
/// fails kept (once) with its reason, a replay stopped half-way then run again.
@Suite("Replay of tally.failed_events", .serialized)
struct FailedEventsReplayTests {
    static let time = Timestamp(rfc3339: "2026-11-22T10:00:00Z")!

    /// The shop plan: `shop_viewed` with `sku`; `fixed` also declares `coupon`.
    static func registry(fixed: Bool) throws -> SchemaRegistry {
        let directory = NSTemporaryDirectory() + "tally-plans-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let coupon = fixed ? #", "coupon": { "type": "string" }"# : ""
        try """
        {"feature": "shop", "description": "The shop.", "screens": ["shop"], "events": [{"name": "shop_viewed", "version": "1-0-0", "description": "A product page appeared.", "properties": {"type": "object",
          "properties": {"sku": {"type": "string"}\(coupon)}, "additionalProperties": false}}]}
        """.write(toFile: directory + "/shop.json", atomically: true, encoding: .utf8)
        return try SchemaRegistry.load(directory: directory)
    }

    static func events(_ count: Int, from start: Int = 0, coupon: Bool = true) -> [EventEnvelope] {
        var ids = UUIDv7Generator(seed: UInt64(start + 7))
        return (start..<start + count).map { index in
            var properties: EventProperties = ["sku": .string("sku-\(index)")]
            if coupon { properties["coupon"] = .string("WINTER") }
            return EventEnvelope(
                eventID: ids.next(at: time),
                name: "shop_viewed",
                feature: "shop",
                properties: properties,
                occurredAt: time.advanced(byNanoseconds: Int64(index % 48) * 3_600_000_000_000),
                receivedAt: time,
                userID: "user-\(index % 13)"
            )
        }
    }

    /// A migrated database whose `tally.failed_events` holds `events` as the collector keeps them.
    static func database(keeping events: [EventEnvelope]) async throws -> (TestDatabase, PostgresConnection) {
        let database = try await TestDatabase.create()
        let migrate = try await TestDatabase.tally(["migrate", "--database-url", database.url])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let connection = try await PostgresConnection.connect(database.url)
        // COPY's text format: the JSON holds no tab or newline; its backslashes are doubled.
        var rows: [UInt8] = []
        for (index, event) in events.enumerated() {
            rows.append(contentsOf: "\(time.rfc3339)\tunknown_property\t".utf8)
            rows.append(contentsOf: "request r-\(index) index 0 source ios at $.properties.coupon: not declared\t".utf8)
            for byte in event.ndjsonLine {
                if byte == UInt8(ascii: "\\") { rows.append(byte) }
                rows.append(byte)
            }
        }
        _ = try await connection.copyIn(
            "COPY tally.failed_events (failed_at, reason, detail, event) FROM STDIN",
            data: rows
        )
        return (database, connection)
    }

    static func replay(
        _ database: TestDatabase,
        registry: SchemaRegistry,
        afterBatch: (@Sendable (Int) throws -> Void)? = nil
    ) async throws -> FailedEventsReplayer.Report {
        let decoder = ReplayDecoder(validator: EventValidator(registry: registry))
        var replayer = FailedEventsReplayer(conninfo: database.url, batchSize: 250)
        replayer.afterBatch = afterBatch
        return try await replayer.run { row in
            switch decoder.decode(Array(row.event.utf8), arrivedAt: row.failedAt, now: time) {
            case .valid(let events): .replay(events)
            case .invalid(let violation): .stillFails(reason: violation.code.rawValue, detail: violation.message)
            }
        }
    }

    static func integer(_ connection: PostgresConnection, _ sql: String) async throws -> Int {
        Int(try await connection.query(sql)[0][0] ?? "") ?? -1
    }

    static func checkRollups(_ connection: PostgresConnection) async throws {
        let events = try await integer(connection, "SELECT count(*) FROM tally.events")
        let rollups = try await integer(connection, "SELECT coalesce(sum(events), 0)::bigint FROM tally.rollup_hourly")
        #expect(events == rollups, "the rollups count exactly the stored events")
    }

    @Test("fixed plan: valid rows are stored once and deleted, the others stay with their reason; again: nothing new")
    func replayOnce() async throws {
        let valid = Self.events(900)
        var invalid = Self.events(100, from: 5_000)
        for index in invalid.indices { invalid[index].properties["sku"] = .integer(Int64(index)) }
        let (database, connection) = try await Self.database(keeping: valid + invalid)
        let fixed = try Self.registry(fixed: true)

        let report = try await Self.replay(database, registry: fixed)
        #expect(report.rows == 1_000 && report.replayedRows == 900 && report.inserted == 900)
        #expect(report.stillFailing == ["type_mismatch": 100])
        #expect(try await Self.integer(connection, "SELECT count(*) FROM tally.events") == 900)
        #expect(try await Self.integer(connection, "SELECT count(*) FROM tally.failed_events") == 100)
        #expect(
            try await Self.integer(
                connection,
                "SELECT count(*) FROM tally.failed_events WHERE reason = 'type_mismatch' AND detail LIKE 'expected%'"
            ) == 100
        )
        try await Self.checkRollups(connection)

        let again = try await Self.replay(database, registry: fixed)
        #expect(again.rows == 100 && again.replayedRows == 0 && again.inserted == 0)
        #expect(try await Self.integer(connection, "SELECT count(*) FROM tally.events") == 900)
        #expect(try await Self.integer(connection, "SELECT count(*) FROM tally.failed_events") == 100)
        await connection.close()
        await database.drop()
    }

    @Test("a replay failing half-way, then run again: each event stored once, each row replayed once")
    func failureHalfWayThenRerun() async throws {
        struct Crash: Error {}
        let events = Self.events(2_000)
        // Some events are kept twice (a client re-sent them), and some are already stored.
        let (database, connection) = try await Self.database(keeping: events + Array(events[100..<300]))
        let fixed = try Self.registry(fixed: true)
        await #expect(throws: Crash.self) {
            try await Self.replay(database, registry: fixed) { batches in if batches == 3 { throw Crash() } }
        }
        #expect(try await Self.integer(connection, "SELECT count(*) FROM tally.events") == 750)
        #expect(try await Self.integer(connection, "SELECT count(*) FROM tally.failed_events") == 1_450)

        let rerun = try await Self.replay(database, registry: fixed)
        #expect(rerun.rows == 1_450 && rerun.inserted == 1_250)
        #expect(try await Self.integer(connection, "SELECT count(*) FROM tally.events") == 2_000)
        #expect(try await Self.integer(connection, "SELECT count(DISTINCT event_id) FROM tally.events") == 2_000)
        #expect(try await Self.integer(connection, "SELECT count(*) FROM tally.failed_events") == 0)
        try await Self.checkRollups(connection)
        await connection.close()
        await database.drop()
    }

    @Test("an event PostgreSQL refuses again keeps its one row, with the server's reason")
    func refusedAgainKeepsOneRow() async throws {
        var events = Self.events(20)
        events[7].properties["sku"] = .string("nul \u{0} byte")
        let (database, connection) = try await Self.database(keeping: events)
        let fixed = try Self.registry(fixed: true)
        for _ in 0..<2 {
            let report = try await Self.replay(database, registry: fixed)
            #expect(report.refused <= 1)
            #expect(try await Self.integer(connection, "SELECT count(*) FROM tally.failed_events") == 1)
        }
        let kept = try await connection.query("SELECT reason, event_id::text FROM tally.failed_events")
        #expect(kept[0][0]?.hasPrefix("postgres_22") == true, "\(kept)")
        #expect(kept[0][1] == events[7].eventID.description)
        #expect(try await Self.integer(connection, "SELECT count(*) FROM tally.events") == 19)
        try await Self.checkRollups(connection)
        await connection.close()
        await database.drop()
    }

    @Test("tally replay --failed-events killed with -9 mid-way, then run again: exact counts")
    func killedThenRerun() async throws {
        let events = Self.events(60_000)
        let (database, connection) = try await Self.database(keeping: events)
        let plans = NSTemporaryDirectory() + "tally-plans-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: plans, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: plans) }
        try
            #"{"feature": "shop", "description": "The shop.", "screens": ["shop"], "events": [{"name": "shop_viewed", "version": "1-0-0", "description": "A product page appeared.", "properties": {"type": "object", "properties": {"sku": {"type": "string"}, "coupon": {"type": "string"}}, "additionalProperties": false}}]}"#
            .write(toFile: plans + "/shop.json", atomically: true, encoding: .utf8)
        let arguments = ["replay", "--failed-events", "--database-url", database.url, "--registry", plans]
        let replay = try ChildProcess("tally", arguments: arguments)
        // Once some rows are stored, kill it.
        _ = try await TestDatabase.waitForRows(database.url)
        replay.signal(SIGKILL)
        _ = await replay.wait(timeout: .seconds(60))
        let stored = try await Self.integer(connection, "SELECT count(*) FROM tally.events")
        let left = try await Self.integer(connection, "SELECT count(*) FROM tally.failed_events")
        #expect(stored > 0 && stored < 60_000, "killed mid-way (\(stored) stored)")
        #expect(stored + left == 60_000, "each row either replayed (deleted, stored) or not")

        let rerun = try await TestDatabase.tally(arguments + ["--report", "json"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(try await Self.integer(connection, "SELECT count(*) FROM tally.events") == 60_000)
        #expect(try await Self.integer(connection, "SELECT count(*) FROM tally.failed_events") == 0)
        try await Self.checkRollups(connection)
        await connection.close()
        await database.drop()
    }
}
