import Foundation
import TallyTestSupport
import Testing

/// `tally report` as a user runs it: bad input is a usage error (64) with a message that names
/// the problem; a report over an event the store never holds says so and shows zeros; saved
/// reports run and lint with their file and JSON path.
@Suite("tally report (CLI)", .serialized)
struct ReportCommandTests {
    static func store() async throws -> String {
        let directory = try CLI.temporaryDirectory("report")
        let result = try await CLI.run([
            "ingest", "Examples/sample/events.ndjson", "--data-dir", directory + "/data", "--quiet",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        return directory
    }

    @Test("bad input is 64 with what is wrong")
    func badInput() async throws {
        let directory = try await Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let data = ["--data-dir", directory + "/data"]
        let steps = (1...11).flatMap { ["--step", "e\($0)"] }
        let cases: [([String], String)] = [
            (["report", "nonsense"], "nonsense"),
            (["report", "funnel", "--step", "a", "--step", "b", "--window", "0d"] + data, "--window"),
            (["report", "funnel", "--step", "a", "--step", "b", "--window", "-2h"] + data, "--window"),
            (["report", "funnel"] + steps + data, "2 to 10 steps"),
            (["report", "funnel", "--step", "a"] + data, "2 to 10 steps"),
            (["report", "trends", "--event", "a", "--tz", "Mars/Olympus"] + data, "unknown time zone"),
            (["report", "trends", "--event", "a", "--since", "2026-11-10", "--until", "2026-11-01"] + data, "empty"),
            (["report", "trends", "--event", "a where position > abc"] + data, "compares numbers"),
            (["report", "trends", "--event", "a where position ~ 3"] + data, "a filter is FIELD OP VALUE"),
            (["report", "trends", "--event", "a", "--measure", "mean:x"] + data, "unknown measure"),
            (
                [
                    "report", "funnel", "--step", "episode_list_viewed",
                    "--step", "episode_list_episode_selected where episode_id > 3", "--registry", "Examples/registry",
                ] + data,
                "not a number"
            ),
            (
                [
                    "report", "funnel", "--step", "a", "--step", "b", "--order", "unordered", "--exclude",
                    "x between 1 and 2",
                ] + data, "unordered"
            ),
            (["report", "retention", "--start", "a", "--return", "b", "--periods", "0"] + data, "1 to 366"),
        ]
        for (arguments, message) in cases {
            let result = try await CLI.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    @Test("an event the store never holds: a note on stderr, zeros on stdout, exit 0")
    func unknownEvent() async throws {
        let directory = try await Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await CLI.run([
            "report", "trends", "--event", "no_such_event", "--since", "2026-11-08", "--until", "2026-11-10",
            "--data-dir", directory + "/data", "--format", "json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("the store holds no event named \"no_such_event\""))
        let json = try CLI.json(result.stdout)
        let series = json["series"] as? [[String: Any]]
        #expect(series?.first?["values"] as? [Int] == [0, 0])
        #expect(json["store"] as? String != nil)
    }

    @Test("saved reports: run by name, a dashboard in order; lint names the file and the JSON path")
    func savedReports() async throws {
        let directory = try await Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let reports = directory + "/reports"
        try FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: true)
        let funnel = #"""
            {"kind": "funnel", "title": "Browse to play", "range": {"since": "2026-11-01", "until": "2026-12-01"},
             "steps": [{"events": ["episode_list_viewed"]}, {"events": ["episode_list_episode_selected"],
             "filters": [{"field": "position", "op": "<", "value": 3}]}], "window": "1d"}
            """#
        try funnel.write(toFile: reports + "/browse.json", atomically: true, encoding: .utf8)
        let dashboard = #"""
            {"title": "Home", "reports": [
              {"kind": "trends", "title": "Views", "events": ["episode_list_viewed"], "interval": "week",
               "range": {"since": "2026-11-01", "until": "2026-12-01"}},
              {"kind": "breakdown", "event": "player_speed_changed", "breakdown": {"field": "speed"},
               "range": {"since": "2026-11-01", "until": "2026-12-01"}}]}
            """#
        try dashboard.write(toFile: reports + "/home.json", atomically: true, encoding: .utf8)
        let data = ["--data-dir", directory + "/data"]
        let run = try await CLI.run(["report", "run", "browse", "--reports", reports, "--format", "json"] + data)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try CLI.json(run.stdout)["kind"] as? String == "funnel")
        let home = try await CLI.run(["report", "run", "home", "--reports", reports] + data)
        #expect(home.status == 0, "\(home.stderr)")
        #expect(home.stdout.contains("## Views") && home.stdout.contains("breakdown by properties.speed"))
        #expect(home.stdout.range(of: "## Views")!.lowerBound < home.stdout.range(of: "breakdown by")!.lowerBound)
        let clean = try await CLI.run(["report", "lint", reports, "--registry", "Examples/registry"])
        #expect(clean.status == 0, "\(clean.stdout) \(clean.stderr)")
        #expect(clean.stdout.contains("ok: 3 reports in 2 files"))
        let broken =
            #"{"kind": "funnel", "steps": ["a", {"events": ["b"], "filters": [{"field": "x", "op": "~", "value": 1}]}], "window": "1d"}"#
        try broken.write(toFile: reports + "/broken.json", atomically: true, encoding: .utf8)
        let unknown = #"{"kind": "trends", "events": ["no_such_event"]}"#
        try unknown.write(toFile: reports + "/unknown.json", atomically: true, encoding: .utf8)
        let lint = try await CLI.run(["report", "lint", reports, "--registry", "Examples/registry"])
        #expect(lint.status == 1)
        #expect(lint.stdout.contains("broken.json: $.steps[1].filters[0].op: unknown operator \"~\""), "\(lint.stdout)")
        #expect(lint.stdout.contains("unknown.json: warning: no tracking plan declares the event \"no_such_event\""))
        let missing = try await CLI.run(["report", "run", "nope", "--reports", reports] + data)
        #expect(missing.status == 64)
    }
}
