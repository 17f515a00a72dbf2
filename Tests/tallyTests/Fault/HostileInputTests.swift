import Foundation
import TallyCore
import TallyPostgres
import TallyTestSupport
import Testing

/// Hostile input through the real binary into PostgreSQL and the file store: no crash, no hang,
/// bounded memory, every line accounted for, nothing reaching SQL as code.
@Suite("Hostile input", .serialized)
struct HostileInputTests {
    static let valid = #"{"name":"episode_list_viewed","feature":"episode","occurred_at":"2026-11-20T10:00:00Z"}"#

    static func line(properties: String, userID: String = #""u""#) -> String {
        #"{"name":"hostile_row_loaded","feature":"hostile","occurred_at":"2026-11-20T10:00:01Z","user_id":"#
            + userID + #","properties":"# + properties + "}"
    }

    static func accountedFor(_ report: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = report["lines"] as? Int ?? -1
        let sum = (report["accepted"] as? Int ?? 0) + (report["rejected"] as? Int ?? 0) + (report["blank"] as? Int ?? 0)
        #expect(lines == sum, "accepted + rejected + blank == read", sourceLocation: sourceLocation)
    }

    @Test("a 100 MB line, 100,000-deep nesting, invalid UTF-8, NUL bytes, SQL fragments, hostile identifiers")
    func hostileLines() async throws {
        let database = try await TestDatabase.create()
        #expect(try await TestDatabase.tally(["migrate", "--database-url", database.url]).status == 0)
        let connection = try await PostgresConnection.connect(database.url)
        try await connection.execute("CREATE TABLE public.bystander (id int); INSERT INTO public.bystander VALUES (1)")
        let work = NSTemporaryDirectory() + "tally-hostile-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }

        let sql = [
            "'; DROP TABLE tally.events; --", "x'); DELETE FROM tally.events; --", "$$; TRUNCATE tally.events; $$",
            "\\\\'; COPY tally.events TO PROGRAM 'touch /tmp/pwned'; --", "E'\\\\x00'",
        ]
        _ = FileManager.default.createFile(atPath: work + "/input.ndjson", contents: nil)
        let big = try FileHandle(forWritingTo: URL(fileURLWithPath: work + "/input.ndjson"))
        // 100 MB on one line, written in pieces.
        try big.write(contentsOf: Data((Self.valid + "\n").utf8))
        try big.write(contentsOf: Data(#"{"name":"a_b","occurred_at":"2026-11-20T10:00:00Z","properties":{"x":""#.utf8))
        let chunk = Data(repeating: UInt8(ascii: "A"), count: 1 << 20)
        for _ in 0..<100 { try big.write(contentsOf: chunk) }
        try big.write(contentsOf: Data("\"}}\n".utf8))
        var lines: [[UInt8]] = []
        lines.append(
            Array(
                Self.line(
                    properties: #"{"x":"# + String(repeating: "[", count: 100_000)
                        + String(repeating: "]", count: 100_000) + "}"
                ).utf8
            )
        )
        lines.append(Array((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8))
        lines.append(Array(String(repeating: "{\"a\":", count: 100_000).utf8))
        lines.append(
            Array(#"{"name":"a_b","occurred_at":"2026-11-20T10:00:00Z","properties":{"x":""#.utf8) + [
                0xFF, 0xFE, 0xC0, 0x80,
            ] + Array(#""}}"#.utf8)
        )
        lines.append(
            Array(#"{"name":"a_b","occurred_at":"2026-11-20T10:00:00Z","properties":{"x":"a"#.utf8) + [0x00]
                + Array(#"b"}}"#.utf8)
        )
        lines.append([0x00, 0x00, 0x00])
        lines.append(Array(Self.line(properties: #"{"nul":"a\u0000b"}"#).utf8))
        for (index, fragment) in sql.enumerated() {
            let quoted = String(
                decoding: try JSONSerialization.data(withJSONObject: [fragment], options: [.fragmentsAllowed]),
                as: UTF8.self
            ).dropFirst().dropLast()
            lines.append(
                Array(Self.line(properties: "{\(quoted):\(quoted),\"i\":\(index)}", userID: String(quoted)).utf8)
            )
            lines.append(Array(#"{"name":\#(quoted),"occurred_at":"2026-11-20T10:00:00Z"}"#.utf8))
            lines.append(Array(#"{"name":"a_b","feature":\#(quoted),"occurred_at":"2026-11-20T10:00:00Z"}"#.utf8))
            lines.append(Array(#"{"name":"a_b","event_id":\#(quoted),"occurred_at":"2026-11-20T10:00:00Z"}"#.utf8))
        }
        var identifiers = 0
        let jitsu = try ConformanceData.require("jitsu-bulker-ndjson")
        let rows = try String(contentsOf: jitsu.appendingPathComponent("sql/identifiers.ndjson"), encoding: .utf8)
        for row in rows.split(separator: "\n") {
            lines.append(Array(Self.line(properties: String(row)).utf8))
            identifiers += 1
            // Its keys as event names: refused by the naming rules, never an error.
            if case .object(let members)? = try? JSONParser.parse(String(row)) {
                for member in members {
                    let name = String(
                        decoding: try JSONSerialization.data(
                            withJSONObject: member.key,
                            options: [.fragmentsAllowed]
                        ),
                        as: UTF8.self
                    )
                    lines.append(Array(#"{"name":\#(name),"occurred_at":"2026-11-20T10:00:00Z"}"#.utf8))
                }
            }
        }
        lines.append(Array(Self.valid.replacingOccurrences(of: "10:00:00", with: "10:00:09").utf8))
        for line in lines { try big.write(contentsOf: Data(line + [0x0A])) }
        try big.close()

        let result = try await TestDatabase.tally(
            [
                "ingest", work + "/input.ndjson", "--store", "postgres", "--store", "file", "--database-url",
                database.url,
                "--data-dir", work + "/data", "--quiet", "--report", "json",
            ],
            timeout: .seconds(300)
        )
        #expect(result.status == 0, "\(result.stderr)")
        let report = StoreChecks.report(result.stdout)
        Self.accountedFor(report)
        #expect(report["lines"] as? Int == lines.count + 2)
        #expect((report["rejected_by_reason"] as? [String: Int])?["too_large"] ?? 0 >= 1, "the 100 MB line")
        let peak = report["peak_rss_bytes"] as? Int ?? .max
        #expect(peak < 150 << 20, "bounded memory with a 100 MB line: peak RSS \(peak >> 20) MB")

        // SQL stayed data: tally's tables and the bystander are intact, the fragments stored as text.
        let inserted = (report["postgres_inserted"] as? Int) ?? -1
        #expect(try await TestDatabase.eventCount(database.url) == inserted)
        #expect(try await connection.query("SELECT count(*) FROM public.bystander")[0][0] == "1")
        for fragment in sql {
            let stored = try await connection.query(
                "SELECT properties->>$1, user_id FROM tally.events WHERE properties ? $1",
                [fragment]
            )
            #expect(stored.first?[0] == fragment && stored.first?[1] == fragment, "\(fragment)")
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/pwned"))
        let failed = try await connection.query("SELECT count(*) FROM tally.failed_events")
        #expect(failed[0][0] == "1", "the \\u0000 value, which PostgreSQL text cannot hold")
        try await StoreChecks.expectDerivedTablesExact(database.url)
        await connection.close()
        print(
            "hostile input: \(lines.count + 2) lines (\(identifiers) Jitsu identifier rows, their keys also as names), peak RSS \(peak >> 20) MB"
        )
    }

    @Test("every JSONTestSuite file as a whole input, all in one run: no crash, every line accounted for")
    func jsonTestSuiteFiles() async throws {
        let directory = try ConformanceData.require("jsontestsuite/test_parsing")
        let database = try await TestDatabase.create()
        #expect(try await TestDatabase.tally(["migrate", "--database-url", database.url]).status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            .map { directory.appendingPathComponent($0).path }
        let data = NSTemporaryDirectory() + "tally-jts-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: data) }
        let result = try await TestDatabase.tally(
            ["ingest"] + files + [
                "--store", "postgres", "--store", "file", "--database-url", database.url, "--data-dir", data,
                "--quiet", "--report", "json",
            ],
            timeout: .seconds(300)
        )
        // JSON texts, none of them a tally event: nothing is accepted, a data error (65), not a crash.
        #expect(result.status == 65, "\(result.stderr)")
        let report = StoreChecks.report(result.stdout)
        #expect(report["accepted"] as? Int == 0)
        #expect((report["inputs"] as? [String])?.count == files.count)
        Self.accountedFor(report)
        #expect(try await TestDatabase.eventCount(database.url) == report["postgres_inserted"] as? Int)
    }
}
