import Foundation
import TallyCore
import TallyTestSupport
import Testing

@testable import TallyPostgres

/// The sink's rollup upkeep (``RollupBatch``: aggregation over the COPY bytes, binary array
/// parameters, actor sets as slices) against the plain `GROUP BY` over what was stored.
@Suite("Rollup upkeep")
struct RollupUpkeepTests {
    /// Keys that quote, escape, delimit or normalize differently in text arrays and in Swift.
    static let awkward = [
        "", "a\"b", "{x,y}", "back\\slash", "NULL", "José", "Jose\u{301}", "emoji 🎬", "with space",
        String(repeating: "long_", count: 20), "comma,", "}", "'quote'",
    ]

    /// Events in shuffled time order over three days around 1970-01-01 (negative timestamps
    /// included), 120 event names, a few hundred actors, some events with no actor at all.
    static func events(count: Int, seed: UInt64) -> [EventEnvelope] {
        var random = SplitMix64(seed: seed)
        var ids = UUIDv7Generator(seed: seed)
        let start = Timestamp(rfc3339: "1969-12-31T00:00:00Z")!
        return (0..<count).map { _ in
            let time = start.advanced(byNanoseconds: Int64(random.next() % (3 * 86_400_000_000_000)))
            let feature = awkward[Int(random.next() % UInt64(awkward.count))]
            let name =
                random.next() % 4 == 0
                ? awkward[Int(random.next() % UInt64(awkward.count))] : "event_\(random.next() % 120)"
            var event = EventEnvelope(eventID: ids.next(at: time), name: name, feature: feature, occurredAt: time)
            switch random.next() % 5 {
            case 0: break
            case 1, 2: event.userID = awkward[Int(random.next() % UInt64(awkward.count))] + "\(random.next() % 30)"
            default: event.anonymousID = "install-\(random.next() % 300)"
            }
            return event
        }
    }

    @Test(
        "rollups and per-day users equal GROUP BY over the stored events: awkward keys, pre-1970 times, re-sent batches"
    )
    func upkeepIsExact() async throws {
        let database = try await TestDatabase.create()
        #expect(try await TestDatabase.tally(["migrate", "--database-url", database.url]).status == 0)
        let events = Self.events(count: 6_000, seed: 7)
        let sink = PostgresSink(conninfo: database.url)
        try await sink.write(Array(events[..<2_500]))
        try await sink.write(Array(events[2_500...]))
        // Repeats: the whole first batch, then a mix of stored and new events.
        try await sink.write(Array(events[..<2_500]))
        let more = Self.events(count: 1_000, seed: 8)
        try await sink.write(Array(events[3_000..<3_500]) + more)
        try await sink.shutdown()
        #expect(await sink.inserted == 7_000)

        let connection = try await PostgresConnection.connect(database.url)
        let rollupDifference = try await connection.query(
            """
            WITH raw AS (
                SELECT date_trunc('hour', occurred_at, 'UTC') AS hour, feature, name, count(*) AS events,
                       min(occurred_at) AS first_seen, max(occurred_at) AS last_seen
                FROM tally.events GROUP BY 1, 2, 3
            ), rollup AS (SELECT hour, feature, name, events, first_seen, last_seen FROM tally.rollup_hourly)
            SELECT (SELECT count(*) FROM (SELECT * FROM raw EXCEPT SELECT * FROM rollup) a),
                   (SELECT count(*) FROM (SELECT * FROM rollup EXCEPT SELECT * FROM raw) b),
                   (SELECT count(*) FROM rollup)
            """
        )
        #expect(rollupDifference[0][0] == "0" && rollupDifference[0][1] == "0", "\(rollupDifference)")
        #expect(Int(rollupDifference[0][2] ?? "") ?? 0 > 1_000)
        let actorDifference = try await connection.query(
            """
            WITH raw AS (
                SELECT DISTINCT (occurred_at AT TIME ZONE 'UTC')::date AS day, feature,
                       coalesce(user_id, anonymous_id) AS actor
                FROM tally.events WHERE coalesce(user_id, anonymous_id) IS NOT NULL
            )
            SELECT (SELECT count(*) FROM (SELECT * FROM raw EXCEPT SELECT * FROM tally.daily_actors) a),
                   (SELECT count(*) FROM (SELECT * FROM tally.daily_actors EXCEPT SELECT * FROM raw) b),
                   (SELECT count(*) FROM raw),
                   (SELECT count(DISTINCT day) FROM raw WHERE day < '1970-01-01')
            """
        )
        #expect(actorDifference[0][0] == "0" && actorDifference[0][1] == "0", "\(actorDifference)")
        #expect(Int(actorDifference[0][2] ?? "") ?? 0 > 1_000)
        #expect(actorDifference[0][3] == "1")
        await connection.close()
    }

    @Test("actor sets compare bytes: NFC and NFD ids, days and features are distinct keys")
    func actorSetIsByteExact() {
        var set = ActorSet()
        func insert(_ day: Int64, _ feature: String, _ id: String) -> Bool {
            var (feature, id) = (feature, id)
            return feature.withUTF8 { feature in
                id.withUTF8 { id in
                    let (feature, id) = (UnsafeRawBufferPointer(feature), UnsafeRawBufferPointer(id))
                    return set.insert(
                        day: day,
                        feature: feature,
                        id: id,
                        hash: ActorSet.hash(day: day, feature: feature, id: id)
                    )
                }
            }
        }
        #expect(insert(1, "search", "José"))
        #expect(insert(1, "search", "Jose\u{301}"))
        #expect(!insert(1, "search", "José"))
        #expect(insert(2, "search", "José"))
        #expect(insert(1, "searc", "hJosé"))  // the same bytes split differently
        #expect(insert(1, "", ""))
        for index in 0..<5_000 { #expect(insert(Int64(index % 7), "f", "user-\(index)")) }
        #expect(set.count == 5_005)
        var copy = ActorSet()
        copy.formUnion(set)
        copy.formUnion(set)
        #expect(copy.count == 5_005)
    }
}
