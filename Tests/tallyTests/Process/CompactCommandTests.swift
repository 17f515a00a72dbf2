import Foundation
import TallyTestSupport
import Testing

/// `tally compact` as a user runs it: help, bad input, the same summaries, a writer process
/// appending all along, kill -9 at random points.
@Suite("tally compact (CLI)", .serialized)
struct CompactCommandTests {
    /// The summary's rows and totals (what compaction must not change), without the counts of
    /// copies and torn lines that it removes.
    /// The summaries by feature, event, day and hour.
    static func summaries(_ data: String) async throws -> [String] {
        var summaries: [String] = []
        for grouping in ["feature", "event", "day", "hour"] { summaries.append(try await summary(data, by: grouping)) }
        return summaries
    }

    static func summary(_ data: String, by grouping: String = "day") async throws -> String {
        let result = try await CLI.run(["summary", "--by", grouping, "--format", "json", "--data-dir", data])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try CLI.json(result.stdout)
        let rows = try JSONSerialization.data(withJSONObject: json["rows"] ?? [], options: .sortedKeys)
        let total = try JSONSerialization.data(withJSONObject: json["total"] ?? [:], options: .sortedKeys)
        return String(decoding: rows + total, as: UTF8.self)
    }

    /// Lines in the store's event files, copies and torn lines included.
    static func physicalLines(_ data: String) throws -> Int {
        let directory = data + "/events"
        return try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.reduce(0) {
            $0 + (try Data(contentsOf: URL(fileURLWithPath: directory + "/" + $1))).filter { $0 == 0x0A }.count
        }
    }

    static func generate(_ events: Int, seed: Int, to path: String) async throws {
        let result = try await CLI.run(["generate", "--events", "\(events)", "--seed", "\(seed)", "--days", "3"])
        #expect(result.status == 0, "\(result.stderr)")
        try result.stdout.write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test("--help explains and gives examples; bad durations are usage errors (64) that say what is wrong")
    func helpAndBadInput() async throws {
        let help = try await CLI.run(["compact", "--help"])
        #expect(help.status == 0)
        #expect(
            help.stdout.contains("Examples:")
                && help.stdout.contains("tally compact --data-dir /var/lib/tally --retain 90d")
        )
        #expect(help.stdout.contains("--retain-failed"))
        let directory = try CLI.temporaryDirectory("compact")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let data = try await CLI.store([CLI.event()], in: directory)
        let cases: [([String], String)] = [
            (["--retain", "90x"], #"--retain "90x": unknown unit "x"; use h (hours), d (days) or w (weeks)"#),
            (["--retain", "90"], #"--retain "90": no unit"#),
            (["--retain", "0d"], "above zero"),
            (["--retain", "-1d"], "give a number and a unit"),
            (["--retain", "99999999w"], "within 292 years"),
            (["--retain-failed", "d"], #"--retain-failed "d": give a number and a unit"#),
        ]
        for (arguments, message) in cases {
            let result = try await CLI.run(["compact", "--data-dir", data] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let missing = try await CLI.run(["compact", "--data-dir", directory + "/nowhere"])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("no file store at \(directory)/nowhere"), "\(missing.stderr)")
        let file = directory + "/a-file"
        _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        let notDirectory = try await CLI.run(["compact", "--data-dir", file])
        #expect(notDirectory.status == 73, "\(notDirectory.stderr)")
    }

    @Test("after an ingest run twice: the copies are removed, summaries unchanged, nothing skipped any more")
    func compactAfterDoubleIngest() async throws {
        let directory = try CLI.temporaryDirectory("compact")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let data = directory + "/data"
        for _ in 0..<2 {
            let ingest = try await CLI.run(["ingest", "Examples/sample/events.ndjson", "--data-dir", data, "--quiet"])
            #expect(ingest.status == 0, "\(ingest.stderr)")
        }
        let before = try await Self.summaries(data)
        let lines = try Self.physicalLines(data)
        // The sample itself repeats two events: the store keeps each distinct event once.
        let distinct = try await #require(
            try CLI.json(try CLI.run(["summary", "--format", "json", "--data-dir", data]).stdout)["total_events"]
                as? Int
        )

        let compact = try await CLI.run(["compact", "--data-dir", data, "--report", "json"])
        #expect(compact.status == 0, "\(compact.stderr)")
        let report = try CLI.json(compact.stdout)
        #expect(report["duplicates_removed"] as? Int == lines - distinct)
        #expect(try Self.physicalLines(data) == distinct)
        #expect(try await Self.summaries(data) == before)
        let after = try await CLI.json(try CLI.run(["summary", "--format", "json", "--data-dir", data]).stdout)
        #expect(after["duplicates_skipped"] as? Int == 0)

        let text = try await CLI.run(["compact", "--data-dir", data])
        #expect(text.status == 0)
        #expect(text.stdout.contains("0 days read"), "\(text.stdout)")
    }

    @Test("a tally ingest process appending all along while compactions run: nothing is lost")
    func concurrentWriterProcess() async throws {
        let directory = try CLI.temporaryDirectory("compact")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (old, new, data) = (directory + "/old.ndjson", directory + "/new.ndjson", directory + "/data")
        try await Self.generate(30_000, seed: 1, to: old)
        try await Self.generate(300_000, seed: 2, to: new)
        // What the store must hold in the end: every distinct event of both files, once.
        let reference = directory + "/reference"
        for input in [old, new] {
            await #expect(try CLI.run(["ingest", input, "--data-dir", reference, "--quiet"]).status == 0)
        }
        let expected = try await #require(
            try CLI.json(try CLI.run(["summary", "--format", "json", "--data-dir", reference]).stdout)["total_events"]
                as? Int
        )
        for _ in 0..<2 {
            await #expect(try CLI.run(["ingest", old, "--data-dir", data, "--quiet"]).status == 0)
        }
        let writer = try ChildProcess(
            "tally",
            arguments: ["ingest", new, "--data-dir", data, "--quiet"],
            environment: CLI.cleanEnvironment
        )
        var rewrites = 0
        var runs = 0
        while writer.process.isRunning {
            let compact = try await CLI.run(["compact", "--data-dir", data, "--report", "json"])
            #expect(compact.status == 0, "\(compact.stderr)")
            rewrites += (try CLI.json(compact.stdout)["files_rewritten"] as? [String])?.count ?? 0
            runs += 1
        }
        let written = await writer.wait(timeout: .seconds(300))
        #expect(written.status == 0, "\(written.stderr)")
        #expect(runs >= 2 && rewrites >= 2, "compactions rewrote files while the writer appended (\(runs) runs)")

        await #expect(try CLI.run(["compact", "--data-dir", data]).status == 0)
        let summary = try await CLI.json(try CLI.run(["summary", "--format", "json", "--data-dir", data]).stdout)
        #expect(summary["total_events"] as? Int == expected)
        #expect(try Self.physicalLines(data) == expected, "no copy left, no event lost")
    }

    @Test("kill -9 at random points of a compaction: the summaries never change, a last run finishes the job")
    func killedAtRandomPoints() async throws {
        let directory = try CLI.temporaryDirectory("compact")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (input, data) = (directory + "/events.ndjson", directory + "/data")
        try await Self.generate(100_000, seed: 3, to: input)
        for _ in 0..<3 {
            await #expect(try CLI.run(["ingest", input, "--data-dir", data, "--quiet"]).status == 0)
        }
        let before = try await Self.summary(data, by: "hour")
        let started = ContinuousClock.now
        await #expect(try CLI.run(["compact", "--data-dir", data, "--dry-run"]).status == 0)
        let duration = ContinuousClock.now - started
        var random = SystemRandomNumberGenerator()
        for _ in 0..<4 {
            let compact = try ChildProcess("tally", arguments: ["compact", "--data-dir", data])
            try await Task.sleep(
                for: .seconds(Double(random.next() % 1_000) / 1_000 * Double(duration.components.seconds + 1))
            )
            compact.signal(SIGKILL)
            _ = await compact.wait(timeout: .seconds(60))
            await #expect(try Self.summary(data, by: "hour") == before)
        }
        let last = try await CLI.run(["compact", "--data-dir", data, "--report", "json"])
        #expect(last.status == 0, "\(last.stderr)")
        await #expect(try Self.summary(data, by: "hour") == before)
        let names = try FileManager.default.contentsOfDirectory(atPath: data + "/events")
        #expect(!names.contains { $0.hasSuffix(".tmp") }, "no temporary file left: \(names)")
        let summary = try await CLI.json(try CLI.run(["summary", "--format", "json", "--data-dir", data]).stdout)
        #expect(summary["duplicates_skipped"] as? Int == 0)
    }
}
