import Foundation
import TallyClickHouse
import TallyCore
import TallyFileStore
import TallyReports
import Testing

/// The sink, migrations, summaries and reports on a real two-shard cluster: re-sent batches
/// through either node count once, every actor's events sit on one shard, and reports equal the
/// file store's on the same events.
@Suite("ClickHouse store", .serialized)
struct ClickHouseStoreTests {
    static let base = Timestamp(rfc3339: "2026-11-02T00:00:00Z")!

    static func events(_ count: Int, from start: Int = 0) -> [EventEnvelope] {
        (start..<start + count).map { index in
            let name = ["feed_viewed", "episode_played", "episode_finished"][index % 3]
            return EventEnvelope(
                eventID: EventID(high: 0x0190_0000_0000_7000, low: 0x8000_0000_0000_0000 | UInt64(index)),
                name: name,
                feature: index % 2 == 0 ? "feed" : "player",
                properties: ["show": .string("show-\(index % 4)"), "n": .integer(Int64(index % 5))],
                occurredAt: base.advanced(byNanoseconds: Int64(index) * 97 * 60_000_000_000),
                receivedAt: base,
                userID: index % 7 == 0 ? nil : "user-\(index % 23)",
                anonymousID: index % 7 == 0 ? "anon-\(index % 3)" : nil
            )
        }
    }

    @Test("migrations apply once; a newer one on a node is refused")
    func migrations() async throws {
        let client = try await TestClickHouse.fresh()
        let again = try await ClickHouseMigrator(client: client).migrate()
        #expect(again.allSatisfy { $0.applied.isEmpty } && again.count == client.endpoints.count)
        try await client.node(0).execute(
            "INSERT INTO tally.schema_migrations (version, name, checksum) VALUES (999, 'future', '')"
        )
        await #expect(throws: ClickHouseError.self) { _ = try await ClickHouseMigrator(client: client).migrate() }
    }

    @Test("re-sent batches through either node count once; each actor on one shard")
    func exactlyOnce() async throws {
        let client = try await TestClickHouse.fresh()
        let urls = try TestClickHouse.urls.split(separator: ",").map(String.init)
        let first = try ClickHouseSink(urls: urls[0])
        let second = try ClickHouseSink(urls: urls[urls.count - 1])
        let all = Self.events(600)
        try await first.write(Array(all[..<400]))
        try await second.write(Array(all[200...]))  // 200 again
        try await first.write(Array(all[100..<300]))  // again
        try await second.write(all + all[..<50])  // a batch with repeats in it
        let summary = try await ClickHouseSummarizer(client: client).summarize(SummaryQuery(grouping: .feature))
        #expect(summary.total?.events == 600)
        #expect(summary.total?.uniqueUsers == 23 + 3)
        #expect(summary.rows.map(\.events).reduce(0, +) == 600)
        // The rollups' views saw every copy; their sets hold each id once, as the raw events count.
        let views = try await client.rows("SELECT count() FROM tally.events_hourly")
        #expect(Int(views.first?.first ?? "") ?? 0 > 0)
        for grouping in [SummaryQuery.Grouping.feature, .day] {
            let query = SummaryQuery(
                grouping: grouping,
                since: Self.base,
                until: Self.base.advanced(byNanoseconds: 60 * 86_400_000_000_000)
            )
            let fromRollups = try await ClickHouseSummarizer(client: client).summarize(query)
            let fromEvents = try await ClickHouseSummarizer(client: client).summarize(query, exact: true)
            #expect(fromRollups.total == fromEvents.total)
            #expect(fromRollups.rows.sorted { $0.key < $1.key } == fromEvents.rows.sorted { $0.key < $1.key })
        }
        let raw = try await client.rows("SELECT count() FROM tally.events")
        #expect(Int(raw.first?.first ?? "") ?? 0 > 600, "copies are stored until merges; queries count them once")
        var shards: [Set<String>] = []
        for index in client.endpoints.indices {
            let rows = try await client.node(index).rows("SELECT DISTINCT actor FROM tally.events_local")
            shards.append(Set(rows.map { $0.first ?? "" }))
        }
        #expect(shards.allSatisfy { !$0.isEmpty })
        #expect(shards[0].isDisjoint(with: shards[1]))
    }

    @Test("reports and summaries on ClickHouse equal the file store's on the same events")
    func sameAsFileStore() async throws {
        let client = try await TestClickHouse.fresh()
        let sink = try ClickHouseSink(urls: try TestClickHouse.urls)
        let directory = NSTemporaryDirectory() + "tally-ch-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = FileSink(directory: directory)
        let all = Self.events(900)
        for batch in [Array(all[..<500]), Array(all[300...]), Array(all[..<100])] {
            try await sink.write(batch)
            try await files.write(batch)
        }
        try await files.shutdown()
        let range = ReportRange(
            since: .instant(Self.base),
            until: .instant(Self.base.advanced(byNanoseconds: 90 * 86_400_000_000_000))
        )
        var trends = Report(
            .trends(TrendsDefinition(events: [EventSelector(names: ["feed_viewed", "episode_played"])]))
        )
        trends.range = range
        var funnel = Report(
            .funnel(
                FunnelDefinition(
                    steps: ["feed_viewed", "episode_played", "episode_finished"].map { EventSelector(names: [$0]) },
                    window: 86_400_000_000_000
                )
            )
        )
        funnel.range = range
        var retention = Report(
            .retention(
                RetentionDefinition(
                    start: EventSelector(names: ["feed_viewed"]),
                    returning: EventSelector(names: ["episode_played"])
                )
            )
        )
        retention.range = range
        let now = Self.base.advanced(byNanoseconds: 100 * 86_400_000_000_000)
        for report in [trends, funnel, retention] {
            let onFiles = try await ReportRunner.run(report, on: FileStoreReportSource(directory: directory), now: now)
            let onClickHouse = try await ReportRunner.run(report, on: ClickHouseReportSource(client: client), now: now)
            #expect(
                ReportJSONOutput.render(onClickHouse.result, scope: onClickHouse.scope, store: nil)
                    == ReportJSONOutput.render(onFiles.result, scope: onFiles.scope, store: nil)
            )
        }
        for grouping in SummaryQuery.Grouping.allCases {
            let query = SummaryQuery(grouping: grouping)
            let expected = try FileStoreSummarizer(directory: directory).summarize(query)
            let actual = try await ClickHouseSummarizer(client: client).summarize(query)
            #expect(actual.rows.sorted { $0.key < $1.key } == expected.rows.sorted { $0.key < $1.key })
            #expect(actual.total == expected.total)
        }
    }

    @Test("the rollups migration backfills what the events held before it; summaries stay exact")
    func rollupsBackfill() async throws {
        let client = try await TestClickHouse.fresh()
        for index in client.endpoints.indices {
            let node = client.node(index)
            // As before the migration: no rollups, and migration 1 alone recorded (its statements
            // are idempotent, so forgetting it as well makes them run again harmlessly).
            for table in [
                "events_hourly_view", "actors_daily_view", "events_hourly", "actors_daily", "events_hourly_local",
                "actors_daily_local", "schema_migrations",
            ] {
                try await node.execute("DROP TABLE tally.\(table)")
            }
        }
        let sink = try ClickHouseSink(urls: try TestClickHouse.urls)
        var sampled = Self.events(300)
        for index in sampled.indices where index % 4 == 0 { sampled[index].sampleRate = 0.25 }
        try await sink.write(sampled)
        try await sink.write(Array(sampled[..<100]))  // re-sent before the views exist
        let outcomes = try await ClickHouseMigrator(client: client).migrate()
        #expect(outcomes.allSatisfy { $0.applied == [1, 2] })
        try await sink.write(Array(sampled[50..<200]))  // and after
        for grouping in [SummaryQuery.Grouping.feature, .day] {
            let query = SummaryQuery(grouping: grouping)
            let fromRollups = try await ClickHouseSummarizer(client: client).summarize(query)
            let fromEvents = try await ClickHouseSummarizer(client: client).summarize(query, exact: true)
            #expect(fromRollups.total?.events == 300)
            #expect(fromRollups.total == fromEvents.total)
            #expect(fromRollups.rows.sorted { $0.key < $1.key } == fromEvents.rows.sorted { $0.key < $1.key })
            #expect((fromRollups.total?.unsampledEstimate ?? 0) == 75 * 3)
        }
    }

    @Test("a shard whose table differs: the batch goes to tally.failed_events at once, else the error is permanent")
    func permanentRefusal() async throws {
        let client = try await TestClickHouse.fresh()
        for index in client.endpoints.indices {
            try await client.node(index).execute(
                "ALTER TABLE tally.events_local MODIFY COLUMN session_id Nullable(UInt32)"
            )
        }
        let sink = try ClickHouseSink(urls: try TestClickHouse.urls)
        var events = Self.events(20)
        for index in events.indices { events[index].sessionID = "session-\(index)" }
        try await sink.write(events)
        #expect(await sink.failed == 20)
        let failed = try await client.rows(
            "SELECT reason, count(), uniqExact(event_id), min(detail) FROM tally.failed_events GROUP BY reason"
        )
        #expect(failed.count == 1)
        #expect(failed.first?[0] == "clickhouse_171" && failed.first?[1] == "20" && failed.first?[2] == "20")
        #expect(failed.first?[3].contains("Block structure mismatch") == true)

        // When the failed events' table refuses as well, nothing counts as stored: a permanent error.
        for index in client.endpoints.indices {
            try await client.node(index).execute("DROP TABLE tally.failed_events_local")
        }
        await #expect {
            try await sink.write(
                Self.events(20, from: 100).map { event in
                    var event = event
                    event.sessionID = "s"
                    return event
                }
            )
        } throws: { error in
            (error as? ClickHouseError)?.errorClass == .permanent
        }
    }
}
