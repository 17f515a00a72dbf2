import Foundation
import TallyTestSupport
import Testing

/// `tally replay` as an operator runs it: a plan fixed after an ingest rejected lines, dead letters
/// replayed into the file store, a replay killed mid-way, bad usage.
@Suite("tally replay (CLI)", .serialized)
struct ReplayCommandTests {
    /// A registry with `shop_viewed` (`sku`, and `coupon` once fixed).
    static func plans(fixed: Bool, in directory: String) throws -> String {
        let plans = directory + (fixed ? "/plans-fixed" : "/plans")
        try FileManager.default.createDirectory(atPath: plans, withIntermediateDirectories: true)
        let coupon = fixed ? #", "coupon": {"type": "string"}"# : ""
        try
            #"{"feature": "shop", "description": "The shop.", "screens": ["shop"], "events": [{"name": "shop_viewed", "version": "1-0-0", "description": "A product page appeared.", "properties": {"type": "object", "properties": {"sku": {"type": "string"}\#(coupon)}, "additionalProperties": false}}]}"#
            .write(toFile: plans + "/shop.json", atomically: true, encoding: .utf8)
        return plans
    }

    static func shop(_ index: Int, coupon: Bool = false, sku: String? = nil) -> String {
        #"{"name":"shop_viewed","occurred_at":"2026-11-22T10:\#(String(format: "%02d", index % 60)):00Z","user_id":"u\#(index)","properties":{"sku":\#(sku ?? "\"s-\(index)\"")\#(coupon ? #","coupon":"C""# : "")}}"#
    }

    static func totalEvents(_ data: String) async throws -> Int? {
        try await CLI.json(try CLI.run(["summary", "--format", "json", "--data-dir", data]).stdout)["total_events"]
            as? Int
    }

    @Test("--help explains and gives examples; bad usage is 64, no store is 66")
    func helpAndUsage() async throws {
        let help = try await CLI.run(["replay", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("Examples:") && help.stdout.contains("tally replay --failed-events"))
        let directory = try CLI.temporaryDirectory("replay")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/dead-letter.ndjson"
        _ = FileManager.default.createFile(atPath: file, contents: Data())
        let cases: [([String], Int32, String)] = [
            (["replay", "--failed-events", file], 64, "give no FILE"),
            (["replay", "--failed-events", "--store", "file"], 64, "drop --store file"),
            // --sink, the former name of --store, still works.
            (["replay", "--failed-events", "--sink", "file"], 64, "drop --store file"),
            (["replay", "--store", "file", "--sink", "postgres"], 64, "give one --store"),
            (["replay", directory + "/missing.ndjson"], 64, "does not exist"),
            (["replay", directory], 64, "is a directory"),
            (["replay", "--data-dir", directory + "/nowhere"], 66, "no file store at"),
            (["replay", "--failed-events", "--database-url", CLI.downDatabase], 69, "cannot connect"),
        ]
        for (arguments, status, message) in cases {
            let result = try await CLI.run(arguments)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    @Test("a plan fixed after ingest rejected lines: replay stores them once, keeps the line still invalid")
    func fixedPlanThenReplay() async throws {
        let directory = try CLI.temporaryDirectory("replay")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (data, input) = (directory + "/data", directory + "/export.ndjson")
        let lines =
            (0..<6).map { Self.shop($0) } + (6..<9).map { Self.shop($0, coupon: true) } + [Self.shop(9, sku: "9")]
        try CLI.write(lines, to: input)
        let old = try Self.plans(fixed: false, in: directory)
        let ingest = try await CLI.run(["ingest", input, "--registry", old, "--data-dir", data, "--quiet"])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        await #expect(try Self.totalEvents(data) == 6)
        let rejectsDirectory = data + "/rejects"
        let rejects =
            rejectsDirectory + "/" + (try FileManager.default.contentsOfDirectory(atPath: rejectsDirectory)[0])

        let fixed = try Self.plans(fixed: true, in: directory)
        let dry = try await CLI.run(["replay", "--registry", fixed, "--data-dir", data, "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("dry run") && dry.stdout.contains("3 replayed"), "\(dry.stdout)")
        await #expect(try Self.totalEvents(data) == 6)

        let replay = try await CLI.run(["replay", "--registry", fixed, "--data-dir", data, "--report", "json"])
        #expect(replay.status == 0, "\(replay.stderr)")
        let report = try CLI.json(replay.stdout)
        #expect(report["replayed"] as? Int == 3 && report["events_stored"] as? Int == 3)
        #expect(report["still_failing"] as? Int == 1)
        await #expect(try Self.totalEvents(data) == 9)
        let left = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
        #expect(left.count == 1)
        let kept = try CLI.json(String(left[0]))
        #expect(kept["reason"] as? String == "type_mismatch" && kept["line"] as? Int == 10)
        #expect(kept["raw"] as? String == lines[9], "the line as it was read")

        // Again: nothing more to store; the line that still fails stays, and the run says so (65).
        let again = try await CLI.run(["replay", "--registry", fixed, "--data-dir", data])
        #expect(again.status == 65, "\(again.stdout) \(again.stderr)")
        #expect(again.stderr.contains("nothing could be replayed"))
        await #expect(try Self.totalEvents(data) == 9)
        let physical = try FileManager.default.contentsOfDirectory(atPath: data + "/events").reduce(0) {
            $0 + (try String(contentsOfFile: data + "/events/" + $1, encoding: .utf8)).split(separator: "\n").count
        }
        #expect(physical == 9, "each event stored once")
    }

    @Test("dead letters replayed into the file store: killed with -9 mid-way and run again, each event stored once")
    func killedThenRerun() async throws {
        let directory = try CLI.temporaryDirectory("replay")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let data = directory + "/data"
        let generated = try await CLI.run(["generate", "--events", "150000", "--seed", "9", "--days", "2"])
        try FileManager.default.createDirectory(atPath: data + "/dead-letter", withIntermediateDirectories: true)
        var letters = ""
        for line in generated.stdout.split(separator: "\n") {
            letters +=
                #"{"failed_at":"2026-11-22T12:00:00.000000Z","sink":"file","reason":"write events: No space left on device","attempts":10,"event":\#(line)}"#
                + "\n"
        }
        let file = data + "/dead-letter/dead-letter-2026-11-22.ndjson"
        try letters.write(toFile: file, atomically: true, encoding: .utf8)
        // What the store must hold in the end.
        let reference = directory + "/reference.ndjson"
        try generated.stdout.write(toFile: reference, atomically: true, encoding: .utf8)
        await #expect(try CLI.run(["ingest", reference, "--data-dir", directory + "/expected", "--quiet"]).status == 0)
        let expected = try await #require(try Self.totalEvents(directory + "/expected"))

        let replay = try ChildProcess(
            "tally",
            arguments: ["replay", "--data-dir", data],
            environment: CLI.cleanEnvironment
        )
        // Once the first events are in the store (mid-way: 150,000 take seconds), kill it.
        let events = data + "/events"
        while replay.process.isRunning,
            ((try? FileManager.default.contentsOfDirectory(atPath: events)) ?? []).isEmpty
        {
            try await Task.sleep(for: .milliseconds(5))
        }
        replay.signal(SIGKILL)
        _ = await replay.wait(timeout: .seconds(60))
        #expect(FileManager.default.fileExists(atPath: file), "the dead-letter file is still there")

        let rerun = try await CLI.run(["replay", "--data-dir", data, "--report", "json"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(!FileManager.default.fileExists(atPath: file), "nothing remains")
        await #expect(try Self.totalEvents(data) == expected)
        let summary = try await CLI.json(try CLI.run(["summary", "--format", "json", "--data-dir", data]).stdout)
        #expect(summary["duplicates_skipped"] as? Int == 0, "no event appended twice")
    }
}
