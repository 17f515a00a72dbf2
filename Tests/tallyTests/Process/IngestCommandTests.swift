import Foundation
import TallyTestSupport
import Testing

/// `tally ingest` and `tally summary` as a user runs them.
@Suite("tally ingest and summary (CLI)", .serialized)
struct IngestCommandTests {
    static func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess("tally", arguments: arguments).wait()
    }

    static func temporaryDirectory() throws -> String {
        let directory = NSTemporaryDirectory() + "tally-ingest-cli-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A generated file with duplicates: repeated lines, and lines without event_id (ids from their bytes).
    static func inputWithDuplicates(in directory: String) async throws -> String {
        let generated = try await run(["generate", "--events", "3000", "--seed", "11"])
        #expect(generated.status == 0)
        var lines = generated.stdout.split(separator: "\n").map(String.init)
        let withoutIDs = lines.prefix(200).map { line in
            line.replacingOccurrences(of: #"\{"event_id":"[0-9a-f-]{36}","#, with: "{", options: .regularExpression)
        }
        lines += lines.prefix(300)  // the same events again
        lines += withoutIDs + withoutIDs  // content-identified events, twice
        let path = directory + "/input.ndjson"
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)  // no final newline
        return path
    }

    /// Per feature: distinct events (by event_id, else by the line's bytes) and distinct users.
    static func independentCounts(_ path: String) throws -> [String: (events: Int, users: Int)] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var events: [String: Set<String>] = [:]
        var users: [String: Set<String>] = [:]
        for line in text.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            let feature = object["feature"] as! String
            events[feature, default: []].insert((object["event_id"] as? String) ?? String(line))
            if let user = (object["user_id"] as? String) ?? (object["anonymous_id"] as? String) {
                users[feature, default: []].insert(user)
            }
        }
        return events.mapValues { _ in (0, 0) }.reduce(into: [:]) { result, entry in
            result[entry.key] = (events[entry.key]!.count, users[entry.key]?.count ?? 0)
        }
    }

    @Test("summary --by feature --format json agrees with independent counts; a second ingest changes nothing")
    func summaryMatchesAndIngestIsIdempotent() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = try await Self.inputWithDuplicates(in: directory)
        let data = directory + "/data"
        let first = try await Self.run(["ingest", input, "--data-dir", data, "--quiet"])
        #expect(first.status == 0, "\(first.stderr)")
        let summary = try await Self.run(["summary", "--by", "feature", "--format", "json", "--data-dir", data])
        #expect(summary.status == 0)
        let parsed = try JSONSerialization.jsonObject(with: Data(summary.stdout.utf8)) as! [String: Any]
        let rows = parsed["rows"] as! [[String: Any]]
        let expected = try Self.independentCounts(input)
        #expect(rows.count == expected.count)
        for row in rows {
            let feature = row["feature"] as! String
            #expect(row["events"] as? Int == expected[feature]?.events, "\(feature)")
            #expect(row["unique_users"] as? Int == expected[feature]?.users, "\(feature)")
        }

        let groupings = ["feature", "event", "day", "hour"]
        var before: [String] = []
        for grouping in groupings {
            before.append(
                try await Self.run(["summary", "--by", grouping, "--format", "csv", "--data-dir", data]).stdout
            )
        }
        let second = try await Self.run(["ingest", input, "--data-dir", data, "--quiet"])
        #expect(second.status == 0)
        var after: [String] = []
        for grouping in groupings {
            after.append(
                try await Self.run(["summary", "--by", grouping, "--format", "csv", "--data-dir", data]).stdout
            )
        }
        #expect(after == before, "a second ingest of the same file changes no count")
        let afterTwice = try await Self.run(["summary", "--by", "feature", "--format", "json", "--data-dir", data])
        let rowsTwice = (try JSONSerialization.jsonObject(with: Data(afterTwice.stdout.utf8)) as! [String: Any])["rows"]
        #expect((rowsTwice as! [[String: Any]]).map { $0["events"] as! Int } == rows.map { $0["events"] as! Int })
    }

    @Test("rejects: file, line, reason and raw line; --max-rejects stops with exit 65; empty input is 0 events, exit 0")
    func rejectsAndExitCodes() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = directory + "/bad.ndjson"
        let good = #"{"name":"episode_list_viewed","occurred_at":"2026-11-22T10:00:00Z","feature":"episode"}"#
        try [
            good, #"{"name":"episode_list_viewed""#, good.replacingOccurrences(of: "10:00", with: "11:00"), "\r",
            #"{"name":"X"}"#,
        ]
        .joined(separator: "\r\n").write(toFile: input, atomically: true, encoding: .utf8)
        let rejects = directory + "/rejects.ndjson"
        let result = try await Self.run([
            "ingest", input, "--data-dir", directory + "/data", "--rejects", rejects, "--report", "json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        #expect(report["accepted"] as? Int == 2)
        #expect(report["rejected"] as? Int == 2)
        #expect(report["blank"] as? Int == 1)
        let rejected = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
        #expect(rejected.count == 2)
        #expect(rejected[0].contains(#""line":2,"reason":"malformed_json""#))
        #expect(rejected[0].contains(#""raw":"{\"name\":\"episode_list_viewed\"""#))

        let strict = try await Self.run([
            "ingest", input, "--data-dir", directory + "/data2", "--max-rejects", "0", "--quiet",
        ])
        #expect(strict.status == 65)
        #expect(strict.stderr.contains(": 1 line rejected, more than --max-rejects 0"), "\(strict.stderr)")

        let empty = directory + "/empty.ndjson"
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        let nothing = try await Self.run(["ingest", empty, "--data-dir", directory + "/data3", "--report", "json"])
        #expect(nothing.status == 0)
        #expect(nothing.stdout.contains(#""lines":0,"accepted":0"#))

        let missing = try await Self.run(["ingest", directory + "/nope.ndjson"])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("does not exist"))
    }

    @Test("summary filters and formats")
    func summaryFilters() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = directory + "/in.ndjson"
        try await (try Self.run(["generate", "--events", "500"])).stdout.write(
            toFile: input,
            atomically: true,
            encoding: .utf8
        )
        let data = directory + "/data"
        await #expect(try Self.run(["ingest", input, "--data-dir", data, "--quiet"]).status == 0)
        let day = try await Self.run([
            "summary", "--by", "day", "--feature", "player", "--since", "2026-11-20", "--until", "2026-11-22",
            "--data-dir", data,
        ])
        #expect(day.status == 0)
        #expect(
            day.stdout.contains("2026-11-20") && day.stdout.contains("2026-11-21") && !day.stdout.contains("2026-11-19")
        )
        #expect(day.stdout.contains("█"))
        let csv = try await Self.run([
            "summary", "--by", "event", "--event", "player_opened", "--format", "csv", "--data-dir", data,
        ])
        #expect(
            csv.stdout.hasPrefix(
                "event,events,unique_users,event_types,first_seen,last_seen,estimated_events\nplayer_opened,"
            )
        )
        let bad = try await Self.run(["summary", "--since", "last tuesday", "--data-dir", data])
        #expect(bad.status == 64)
        let nowhere = try await Self.run(["summary", "--data-dir", directory + "/none"])
        #expect(nowhere.status == 66)
    }
}
