import Foundation
import TallyTestSupport
import Testing

/// `tally ingest`: inputs checked before reading, --max-rejects stops where it says, input that
/// is not NDJSON named as such, rejected lines named in the report, size limits that agree.
@Suite("tally ingest: inputs, rejects and limits (CLI)", .serialized)
struct IngestInputTests {
    /// Events stored in `data`, counted by the binary.
    static func storedEvents(_ data: String) async throws -> Int {
        let summary = try await CLI.json(try CLI.run(["summary", "--data-dir", data, "--format", "json"]).stdout)
        return summary["total_events"] as? Int ?? -1
    }

    @Test("every input is checked before anything is read: a directory or a missing file last stores nothing")
    func inputsCheckedFirst() async throws {
        let directory = try CLI.temporaryDirectory("inputs")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let good = directory + "/good.ndjson"
        try CLI.write([CLI.event()], to: good)
        let data = directory + "/data"
        for last in [directory, directory + "/missing.ndjson"] {
            let result = try await CLI.run(["ingest", good, last, "--data-dir", data])
            #expect(result.status == 64, "\(result.stderr)")
            #expect(result.stdout.isEmpty, "no report: nothing was read")
            #expect(!FileManager.default.fileExists(atPath: data), "nothing was stored")
        }
    }

    @Test("--max-rejects N stops at the line that makes N+1, reads nothing after it, and its advice is true")
    func maxRejectsStopsThere() async throws {
        let directory = try CLI.temporaryDirectory("rejects")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = directory + "/input.ndjson"
        var lines: [String] = []
        for index in 0..<8 {
            lines.append(CLI.event(at: "2026-11-22T10:00:0\(index)Z"))
            lines.append("not json \(index)")
        }
        try CLI.write(lines, to: input)  // good, bad, good, bad, …: the 3rd bad line is line 6
        let data = directory + "/data"
        let arguments = ["ingest", input, "--data-dir", data, "--max-rejects", "2", "--report", "json"]
        let result = try await CLI.run(arguments)
        #expect(result.status == 65, "\(result.stderr)")
        let report = try CLI.json(result.stdout)
        #expect(report["lines"] as? Int == 6)
        #expect(report["accepted"] as? Int == 3)
        #expect(report["rejected"] as? Int == 3)
        #expect(report["reject_limit_reached"] as? Bool == true)
        #expect(report["interrupted"] as? Bool == false)
        await #expect(
            try Self.storedEvents(data) == 3,
            "nothing after line 6 was read, every event before it is stored"
        )
        #expect(result.stderr.contains("stopped at \(input):6: 3 lines rejected, more than --max-rejects 2"))
        #expect(result.stderr.contains("Fix the rejected lines"))
        #expect(!result.stderr.contains("to finish"), "running it again does not finish anything: \(result.stderr)")
        // The advice holds: the same command again stores nothing twice and stops at the same line.
        let again = try await CLI.run(arguments)
        #expect(again.status == 65)
        await #expect(try Self.storedEvents(data) == 3)
        let text = try await CLI.run(["ingest", input, "--data-dir", data, "--max-rejects", "2"])
        #expect(text.stdout.contains("stopped at \(input):6, over --max-rejects: nothing after it was read"))
    }

    @Test("input that is not NDJSON gets a warning naming the likely cause; nothing accepted exits 65")
    func notNDJSON() async throws {
        let directory = try CLI.temporaryDirectory("not-ndjson")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let array = directory + "/array.json"
        try CLI.write(["[", "  " + CLI.event() + ",", "  " + CLI.event(at: "2026-11-22T11:00:00Z"), "]"], to: array)
        let oneLineArray = directory + "/one-line.json"
        try CLI.write(["[" + CLI.event() + "]"], to: oneLineArray)
        let pretty = directory + "/pretty.json"
        try CLI.write(
            ["{", #"  "name": "episode_list_viewed","#, #"  "occurred_at": "2026-11-22T10:00:00Z""#, "}"],
            to: pretty
        )
        let random = directory + "/random.bin"
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15  // the same "random" bytes every run
        let bytes = (0..<4096).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        _ = FileManager.default.createFile(atPath: random, contents: Data(bytes))
        let cases: [(String, String, Int32)] = [
            (array, "looks like a JSON array, not NDJSON", 0),  // its last element parses: 1 accepted
            (oneLineArray, "looks like a JSON array, not NDJSON", 65),
            (pretty, "looks like pretty-printed JSON", 65),
            (random, "looks like binary data", 65),
        ]
        for (file, cause, status) in cases {
            let result = try await CLI.run(["ingest", file, "--data-dir", directory + "/data", "--quiet"])
            #expect(result.status == status, "\(file): \(result.stderr)")
            #expect(result.stderr.contains("warning: \(file) is probably not NDJSON: it \(cause)"), "\(result.stderr)")
            if status == 65 { #expect(result.stderr.contains("no line was accepted")) }
        }
        let arrayAdvice = try await CLI.run(["ingest", array, "--data-dir", directory + "/data"])
        #expect(arrayAdvice.stderr.contains("jq -c '.[]' \(array)"))
        // Valid NDJSON whose events fail validation is not called "not NDJSON".
        let invalid = directory + "/invalid.ndjson"
        try CLI.write([#"{"name":"episode_list_viewed"}"#], to: invalid)
        let plain = try await CLI.run(["ingest", invalid, "--data-dir", directory + "/data", "--quiet"])
        #expect(plain.status == 65)
        #expect(!plain.stderr.contains("not NDJSON"), "\(plain.stderr)")
    }

    @Test("the console report names the first rejected lines as file:line: reason; all are in the rejects file")
    func firstRejectedLinesNamed() async throws {
        let directory = try CLI.temporaryDirectory("named")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = directory + "/input.ndjson"
        var lines = [CLI.event()]
        for index in 0..<8 { lines.append(#"{"name":"episode_list_viewed","occurred_at":"nope \#(index)"}"#) }
        lines.append("{broken")
        try CLI.write(lines, to: input)
        let rejects = directory + "/rejects.ndjson"
        let result = try await CLI.run(["ingest", input, "--data-dir", directory + "/data", "--rejects", rejects])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("first rejected lines (4 more in the rejects file):"), "\(result.stdout)")
        #expect(result.stdout.contains("    \(input):2: "), "\(result.stdout)")
        #expect(result.stdout.contains("    \(input):6: "))
        #expect(!result.stdout.contains("\(input):7: "), "five named at most")
        let written = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
        #expect(written.count == 9)
        #expect(written.last?.contains(#""line":10,"reason":"malformed_json""#) == true)
        let json = try await CLI.json(
            try CLI.run(["ingest", input, "--data-dir", directory + "/d2", "--report", "json"]).stdout
        )
        let first = (json["first_rejects"] as? [[String: Any]])?.first
        #expect(first?["line"] as? Int == 2)
        #expect(first?["source"] as? String == input)
    }

    @Test("--max-line-bytes and --max-event-bytes agree: one event's limit, each rejection naming its option")
    func sizeLimitsAgree() async throws {
        let directory = try CLI.temporaryDirectory("sizes")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // One event of about 70 KB (five 14 KB strings): over the default 32 KiB event limit.
        let value = String(repeating: "x", count: 14_000)
        let properties = (1...5).map { #""p\#($0)":"\#(value)""# }.joined(separator: ",")
        let big = #"{"name":"episode_list_viewed","occurred_at":"2026-11-22T10:00:00Z","properties":{\#(properties)}}"#
        let input = directory + "/big.ndjson"
        try CLI.write([big], to: input)
        let byDefault = try await CLI.run(["ingest", input, "--data-dir", directory + "/a"])
        #expect(byDefault.status == 65)
        #expect(
            byDefault.stdout.contains("over the 32768-byte event limit (--max-event-bytes)"),
            "\(byDefault.stdout)"
        )
        let raised = try await CLI.run(["ingest", input, "--data-dir", directory + "/b", "--max-event-bytes", "100000"])
        #expect(raised.status == 0, "\(raised.stdout)\(raised.stderr)")
        let shortLines = try await CLI.run([
            "ingest", input, "--data-dir", directory + "/c", "--max-line-bytes", "20000", "--max-event-bytes", "20000",
        ])
        #expect(shortLines.status == 65)
        #expect(shortLines.stdout.contains("exceeds the 20000-byte limit (--max-line-bytes)"), "\(shortLines.stdout)")
        let conflict = try await CLI.run(["ingest", input, "--max-line-bytes", "20000"])
        #expect(conflict.status == 64, "a line limit below the event limit is refused")
        #expect(conflict.stderr.contains("raise --max-line-bytes or lower --max-event-bytes"))
    }

    @Test("the default event limit at its boundary: 32 KiB stored, one byte more rejected and kept in the rejects file")
    func eventLimitBoundary() async throws {
        let directory = try CLI.temporaryDirectory("boundary")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let limit = 32 * 1024
        let exact = try SizedEvent.line(envelopeBytes: limit, id: 1)
        let over = try SizedEvent.line(envelopeBytes: limit + 1, id: 2)
        let input = directory + "/boundary.ndjson"
        let rejects = directory + "/rejects.ndjson"
        try CLI.write([exact, over], to: input)
        let result = try await CLI.run([
            "ingest", input, "--data-dir", directory + "/data", "--rejects", rejects, "--report", "json",
        ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let report = try CLI.json(result.stdout)
        #expect(report["accepted"] as? Int == 1)
        #expect((report["rejected_by_reason"] as? [String: Int])?["too_large"] == 1)
        let stored = try String(contentsOfFile: directory + "/data/events/events-2026-11-22.ndjson", encoding: .utf8)
        #expect(
            stored.split(separator: "\n").map(\.utf8.count) == [limit],
            "the event as its envelope, exactly the limit"
        )
        let kept = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
        #expect(kept.count == 1)
        let reject = try CLI.json(String(kept[0]))
        #expect(reject["line"] as? Int == 2)
        #expect(reject["reason"] as? String == "too_large")
        #expect(
            reject["message"] as? String
                == "\(limit + 1) bytes as an NDJSON envelope, over the \(limit)-byte event limit (--max-event-bytes)"
        )
        #expect(reject["raw"] as? String == over, "the line kept as it was read")
    }
}
