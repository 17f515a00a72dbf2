import Foundation
import TallyTestSupport
import Testing

/// Events sampled on the device keep their `sample_rate` through ingest and both
/// stores, and `tally summary` prints stored counts and estimated totals side by side, the same
/// from the file store and from PostgreSQL.
@Suite("tally summary: sampled events, stored and estimated (CLI)", .serialized)
struct SampledSummaryTests {
    /// 40 events: 10 viewed unsampled, 20 selected at 10 % (two days), 10 played at 0.25, two
    /// sampled lines sent twice (stored once, estimated once).
    static func lines() -> [String] {
        var lines: [String] = []
        func line(_ index: Int, _ name: String, day: Int, rate: String?) -> String {
            let id = String(format: "01934f6e-8a2b-7c3d-9e4f-%012x", index)
            let sample = rate.map { #","sample_rate":\#($0)"# } ?? ""
            return #"{"event_id":"\#(id)","name":"\#(name)","occurred_at":"2026-11-2\#(day)T10:00:00Z","#
                + #""feature":"episode","user_id":"u\#(index % 7)"\#(sample)}"#
        }
        for index in 0..<10 { lines.append(line(index, "episode_list_viewed", day: 1, rate: nil)) }
        for index in 10..<30 {
            lines.append(line(index, "episode_list_episode_selected", day: 1 + index % 2, rate: "0.1"))
        }
        for index in 30..<40 { lines.append(line(index, "episode_detail_viewed", day: 2, rate: "0.25")) }
        lines.append(line(10, "episode_list_episode_selected", day: 1, rate: "0.1"))
        lines.append(line(30, "episode_detail_viewed", day: 2, rate: "0.25"))
        return lines
    }

    static func rows(_ json: [String: Any]) -> [String: (events: Int, estimated: Int)] {
        var rows: [String: (Int, Int)] = [:]
        for row in json["rows"] as? [[String: Any]] ?? [] {
            let key = row["event"] as? String ?? row["feature"] as? String ?? row["day"] as? String ?? "?"
            rows[key] = (row["events"] as? Int ?? -1, row["estimated_events"] as? Int ?? -1)
        }
        return rows
    }

    @Test("file store and PostgreSQL: the same stored counts and estimates, labelled, by event, day and feature")
    func bothStores() async throws {
        let directory = try CLI.temporaryDirectory("sampled")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let data = try await CLI.store(Self.lines(), in: directory)
        let database = try await TestDatabase.create()
        #expect(try await TestDatabase.tally(["migrate", "--database-url", database.url]).status == 0)
        let loaded = try await CLI.run([
            "ingest", directory + "/input.ndjson", "--store", "postgres", "--database-url", database.url, "--quiet",
        ])
        #expect(loaded.status == 0, "\(loaded.stderr)")
        let expected: [String: (events: Int, estimated: Int)] = [
            "episode_list_viewed": (10, 10), "episode_list_episode_selected": (20, 200),
            "episode_detail_viewed": (10, 40),
        ]
        for grouping in ["event", "day", "feature"] {
            let file = try await CLI.json(
                try CLI.run(["summary", "--data-dir", data, "--by", grouping, "--format", "json"]).stdout
            )
            let postgres = try await CLI.json(
                try CLI.run(["summary", "--database-url", database.url, "--by", grouping, "--format", "json"]).stdout
            )
            let fileRows = Self.rows(file)
            let postgresRows = Self.rows(postgres)
            #expect(
                fileRows.mapValues { [$0.events, $0.estimated] }
                    == postgresRows.mapValues { [$0.events, $0.estimated] }
            )
            for store in [file, postgres] {
                #expect(store["total_events"] as? Int == 40)
                #expect(store["estimated_total_events"] as? Int == 250)
                #expect(store["sampled"] as? Bool == true)
            }
            if grouping == "event" {
                #expect(
                    fileRows.mapValues { [$0.events, $0.estimated] }
                        == expected.mapValues { [$0.events, $0.estimated] }
                )
            }
            if grouping == "day" {
                // 2026-11-21: 10 viewed + 10 selected (100); 2026-11-22: 10 selected (100) + 10 detail (40).
                #expect(fileRows["2026-11-21"].map { [$0.events, $0.estimated] } == [20, 110])
                #expect(fileRows["2026-11-22"].map { [$0.events, $0.estimated] } == [20, 140])
            }
        }
        // The table labels which is which, from both stores; the footer says how estimates are made.
        for arguments in [["--data-dir", data], ["--database-url", database.url]] {
            let table = try await CLI.run(["summary", "--by", "event"] + arguments)
            #expect(table.status == 0, "\(table.stderr)")
            #expect(table.stdout.contains("events (stored)") && table.stdout.contains("estimated"), "\(table.stdout)")
            #expect(table.stdout.contains("~200"), "\(table.stdout)")
            #expect(
                table.stdout.contains("40 events in 3 event types (stored); about 250 estimated"),
                "\(table.stdout)"
            )
            #expect(table.stdout.contains("counts 1 / sample_rate times"), "\(table.stdout)")
        }
        // The rollups' estimate equals the events' (the raw GROUP BY path).
        let exact = try await CLI.json(
            try CLI.run(["summary", "--database-url", database.url, "--by", "hour", "--format", "json"]).stdout
        )
        #expect(exact["estimated_total_events"] as? Int == 250)
        // Unsampled data: no estimate column in the table, estimates equal to the counts in JSON.
        let plain = try await CLI.store([CLI.event()], in: directory + "/plain")
        let table = try await CLI.run(["summary", "--data-dir", plain]).stdout
        #expect(!table.contains("estimated") && table.contains("1 event in 1 feature\n"), "\(table)")
        let json = try await CLI.json(try CLI.run(["summary", "--data-dir", plain, "--format", "json"]).stdout)
        #expect(json["estimated_total_events"] as? Int == 1 && json["sampled"] as? Bool == false)
        await database.drop()
    }
}
