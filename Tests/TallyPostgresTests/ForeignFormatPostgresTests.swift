import Foundation
import TallyCore
import TallyPostgres
import TallyTestSupport
import Testing

/// Segment and PostHog exports into PostgreSQL, through the `tally` binary.
@Suite("Segment and PostHog files into PostgreSQL", .serialized)
struct ForeignFormatPostgresTests {
    @Test(
        "zero rejects, per-name counts exact, identities apart, jsonb equal to what was sent, a re-run inserts nothing"
    )
    func segmentAndPostHogIntoPostgres() async throws {
        let database = try await TestDatabase.create()
        #expect(try await TestDatabase.tally(["migrate", "--database-url", database.url]).status == 0)
        let directory = NSTemporaryDirectory() + "tally-foreign-pg-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let samples = ForeignSamples(count: 300, seed: 7)
        let segment = directory + "/segment.ndjson"
        let posthog = directory + "/posthog.jsonl"
        try samples.segmentLines.joined(separator: "\n").write(toFile: segment, atomically: true, encoding: .utf8)
        try samples.postHogLines.joined(separator: "\n").write(toFile: posthog, atomically: true, encoding: .utf8)
        let arguments = [
            "ingest", segment, posthog, "--store", "postgres", "--database-url", database.url,
            "--data-dir", directory + "/data", "--report", "json", "--quiet",
        ]
        let first = try await TestDatabase.tally(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as! [String: Any]
        #expect(report["rejected"] as? Int == 0, "\(first.stdout)")
        #expect(report["accepted"] as? Int == samples.sent.count)

        let connection = try await PostgresConnection.connect(database.url)
        func counts(_ sql: String) async throws -> [String: Int] {
            var result: [String: Int] = [:]
            for row in try await connection.query(sql) { result[row[0] ?? ""] = Int(row[1] ?? "") ?? -1 }
            return result
        }
        #expect(try await counts("SELECT name, count(*) FROM tally.events GROUP BY 1") == samples.eventCounts)
        #expect(try await counts("SELECT type, count(*) FROM tally.identities GROUP BY 1") == samples.identityCounts)
        #expect(
            try await counts("SELECT name, sum(events) FROM tally.rollup_hourly GROUP BY 1") == samples.eventCounts
        )

        // Properties (traits for identity calls) read back equal to what was sent, as jsonb.
        var mismatches: [String] = []
        for sent in samples.sent {
            let table = sent.kind == "track" ? "tally.events" : "tally.identities"
            let column = sent.kind == "track" ? "properties" : "traits"
            let key = sent.idIsUUID ? "event_id = $1::uuid" : "source_id = $1"
            let rows = try await connection.query(
                "SELECT (\(column) = $2::jsonb)::text, count(*) OVER () FROM \(table) WHERE \(key)",
                [sent.id, sent.properties]
            )
            if rows.count != 1 || rows[0][0] != "true" { mismatches.append("\(sent.id): \(rows)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")

        let second = try await TestDatabase.tally(arguments)
        #expect(second.status == 0, "\(second.stderr)")
        let again = try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as! [String: Any]
        #expect(again["postgres_inserted"] as? Int == 0)
        #expect(again["duplicates_skipped"] as? Int == samples.sent.count)
        #expect(try await counts("SELECT name, count(*) FROM tally.events GROUP BY 1") == samples.eventCounts)
        #expect(try await counts("SELECT type, count(*) FROM tally.identities GROUP BY 1") == samples.identityCounts)

        let summary = try await TestDatabase.tally([
            "summary", "--by", "event", "--format", "json", "--database-url", database.url,
        ])
        #expect(summary.status == 0, "\(summary.stderr)")
        let totals = try JSONSerialization.jsonObject(with: Data(summary.stdout.utf8)) as! [String: Any]
        #expect(totals["total_events"] as? Int == samples.eventCounts.values.reduce(0, +))
        await connection.close()
    }

    @Test("an identify line is counted as a new identity record, and once stored as a duplicate")
    func identityCounts() async throws {
        let database = try await TestDatabase.create()
        #expect(try await TestDatabase.tally(["migrate", "--database-url", database.url]).status == 0)
        let directory = NSTemporaryDirectory() + "tally-identify-pg-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = directory + "/identify.ndjson"
        try
            #"{"type":"identify","userId":"u1","anonymousId":"a1","traits":{"plan":"pro"},"timestamp":"2026-11-20T10:00:00Z","messageId":"m-1"}"#
            .write(toFile: input, atomically: true, encoding: .utf8)
        let arguments = [
            "ingest", input, "--store", "postgres", "--database-url", database.url, "--data-dir", directory,
        ]
        let first = try await TestDatabase.tally(arguments)
        #expect(
            first.stdout.contains("postgres: 0 new events, 1 new identity record, 0 duplicates skipped"),
            "\(first.stdout)"
        )
        let second = try await TestDatabase.tally(arguments + ["--report", "json"])
        #expect(
            second.stdout.contains(#""postgres_inserted":0,"postgres_identities_inserted":0,"duplicates_skipped":1"#),
            "\(second.stdout)"
        )
        await database.drop()
    }
}
