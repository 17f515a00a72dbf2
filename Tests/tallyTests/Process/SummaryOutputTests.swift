import Foundation
import TallyTestSupport
import Testing

/// `tally summary` output: sort, limit, a total row, plurals, RFC 3339 times and the filters in JSON,
/// and `--by` given twice refused.
@Suite("tally summary: output (CLI)", .serialized)
struct SummaryOutputTests {
    /// A store of generated events (three features, nine event types, 500 users, two weeks).
    static func generatedStore(in directory: String) async throws -> String {
        let generated = try await CLI.run(["generate", "--events", "3000", "--seed", "7"])
        let input = directory + "/generated.ndjson"
        try generated.stdout.write(toFile: input, atomically: true, encoding: .utf8)
        let data = directory + "/data"
        await #expect(try CLI.run(["ingest", input, "--data-dir", data, "--quiet"]).status == 0)
        return data
    }

    static func rows(_ json: [String: Any]) -> [[String: Any]] { json["rows"] as? [[String: Any]] ?? [] }

    @Test("--sort count|name, --limit N, and a total row that counts every group, users and types distinct")
    func sortLimitTotal() async throws {
        let directory = try CLI.temporaryDirectory("summary-output")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let data = try await Self.generatedStore(in: directory)
        func json(_ arguments: [String]) async throws -> [String: Any] {
            let result = try await CLI.run(["summary", "--data-dir", data, "--format", "json"] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return try CLI.json(result.stdout)
        }
        let byName = try await json(["--by", "event"])
        let names = Self.rows(byName).compactMap { $0["event"] as? String }
        #expect(names == names.sorted() && names.count == 9)
        let byCount = try await json(["--by", "event", "--sort", "count"])
        let counts = Self.rows(byCount).compactMap { $0["events"] as? Int }
        #expect(counts == counts.sorted(by: >))
        let limited = try await json(["--by", "event", "--sort", "count", "--limit", "3"])
        #expect(Self.rows(limited).count == 3)
        #expect(limited["groups"] as? Int == 9)
        #expect(Self.rows(limited).compactMap { $0["events"] as? Int } == Array(counts.prefix(3)))
        // The total is the same whatever the grouping or limit: users and types are distinct, not summed.
        var totals: [[String: Any]] = []
        for options in [["--by", "feature"], ["--by", "event", "--limit", "1"], ["--by", "day"], ["--by", "hour"]] {
            totals.append(try await json(options)["total"] as? [String: Any] ?? [:])
        }
        for total in totals {
            #expect(total["events"] as? Int == counts.reduce(0, +))
            #expect(total["unique_users"] as? Int == totals[0]["unique_users"] as? Int)
            #expect(total["event_types"] as? Int == 9)
        }
        let summedUsers = await Self.rows(try json(["--by", "feature"])).compactMap { $0["unique_users"] as? Int }
            .reduce(
                0,
                +
            )
        #expect((totals[0]["unique_users"] as? Int ?? 0) < summedUsers, "users in several features count once")
        let table = try await CLI.run([
            "summary", "--data-dir", data, "--by", "event", "--sort", "count", "--limit", "2",
        ])
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("total ") && $0.contains(" \(counts.reduce(0, +)) ") }, "\(table.stdout)")
        #expect(table.stdout.contains("\(counts.reduce(0, +)) events in 9 event types (2 shown, --limit 2)"))
    }

    @Test("plurals: 1 event, 1 feature, 2 event types")
    func plurals() async throws {
        let directory = try CLI.temporaryDirectory("plurals")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let one = try await CLI.store([CLI.event()], in: directory + "/one")
        let table = try await CLI.run(["summary", "--data-dir", one])
        #expect(table.stdout.contains("\n1 event in 1 feature\n"), "\(table.stdout)")
        let two = try await CLI.store([CLI.event(), CLI.event("episode_list_closed")], in: directory + "/two")
        let byEvent = try await CLI.run(["summary", "--data-dir", two, "--by", "event"])
        #expect(byEvent.stdout.contains("\n2 events in 2 event types\n"), "\(byEvent.stdout)")
        let report = try await CLI.run(["ingest", directory + "/one/input.ndjson", "--data-dir", one])
        #expect(report.stdout.hasPrefix("read 1 line from 1 input: "), "\(report.stdout)")
    }

    @Test("JSON: RFC 3339 times with seconds (hour keys too), the filters as applied, --by twice refused")
    func jsonTimesAndFilters() async throws {
        let directory = try CLI.temporaryDirectory("summary-json")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let data = try await Self.generatedStore(in: directory)
        let result = try await CLI.run([
            "summary", "--data-dir", data, "--format", "json", "--by", "hour", "--feature", "player",
            "--since", "2026-11-20", "--until", "2026-11-21T12:30:00Z",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try CLI.json(result.stdout)
        let rfc3339 = #/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/#
        for row in Self.rows(json) {
            for key in ["hour", "first_seen", "last_seen"] {
                let value = row[key] as? String ?? ""
                #expect(value.wholeMatch(of: rfc3339) != nil, "\(key): \(value)")
            }
        }
        #expect(Self.rows(json).first?["hour"] as? String == "2026-11-20T00:00:00Z")
        let filters = json["filters"] as? [String: Any] ?? [:]
        #expect(filters["feature"] as? String == "player")
        #expect(filters["event"] is NSNull)
        #expect((filters["since"] as? String)?.hasPrefix("2026-11-20T00:00:00") == true)
        #expect((filters["until"] as? String)?.hasPrefix("2026-11-21T12:30:00") == true)
        #expect(json["sort"] as? String == "name")
        // A duration is echoed as the absolute time it meant.
        let relative = try await CLI.json(
            try CLI.run(["summary", "--data-dir", data, "--format", "json", "--since", "7d"]).stdout
        )
        #expect(((relative["filters"] as? [String: Any])?["since"] as? String)?.wholeMatch(of: rfc3339) != nil)
        let twice = try await CLI.run(["summary", "--data-dir", data, "--by", "feature", "--by", "day"])
        #expect(twice.status == 64)
        #expect(twice.stderr.contains("give one grouping"))
    }
}
