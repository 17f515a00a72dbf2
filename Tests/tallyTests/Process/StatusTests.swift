import Foundation
import TallyPostgres
import TallyTestSupport
import Testing

/// `tally status` after ingesting the Examples sample plus planted unplanned events, drifted types,
/// undeclared and missing required properties, and failed events: exactly those are listed, the
/// same from PostgreSQL and from the file store.
@Suite("tally status")
struct StatusTests {
    /// Lines planted beside the sample (ids derived from the lines by ingest).
    static let planted = [
        // Unplanned: two names, with app versions and platforms.
        #"{"name":"checkout_started","feature":"checkout","occurred_at":"2026-11-09T10:00:00Z","context":{"app_version":"5.0.0","platform":"ios"}}"#,
        #"{"name":"checkout_started","feature":"checkout","occurred_at":"2026-11-10T11:00:00Z","context":{"app_version":"5.0.1","platform":"android"}}"#,
        #"{"name":"search_voice_used","occurred_at":"2026-11-11T09:30:00Z"}"#,
        // Drifted types: a word for an integer, a fraction for an integer, a number for a string.
        #"{"name":"search_query_submitted","occurred_at":"2026-11-12T08:00:00Z","properties":{"query_length":3.5,"results":"many"}}"#,
        #"{"name":"episode_detail_viewed","occurred_at":"2026-11-12T08:01:00Z","properties":{"episode_id":"ep-1","source":7}}"#,
        // Missing required properties, and one the plan does not declare.
        #"{"name":"player_playback_paused","occurred_at":"2026-11-13T08:00:00Z","properties":{"episode_id":"ep-2"}}"#,
        #"{"name":"search_result_selected","occurred_at":"2026-11-13T08:01:00Z","properties":{"position":"2"}}"#,
        #"{"name":"player_opened","occurred_at":"2026-11-13T08:02:00Z","properties":{"episode_id":"ep-3","volume":0.5}}"#,
        // A planned event seen only before the window: never seen in it, last seen then.
        #"{"name":"episode_detail_play_tapped","occurred_at":"2026-10-15T12:00:00Z","properties":{"episode_id":"ep-4","downloaded":"true"}}"#,
    ]

    /// Failed events, in PostgreSQL's table and the file store's dead-letter files alike.
    static let failures = [
        ("2026-11-14T10:00:00Z", "type_mismatch"), ("2026-11-14T10:00:01Z", "type_mismatch"),
        ("2026-11-15T10:00:00Z", "unknown_event"), ("2026-10-01T10:00:00Z", "too_large"),
    ]

    static let window = ["--since", "2026-11-01", "--until", "2026-12-01"]

    @Test("lists exactly the planted findings, the same from PostgreSQL and the file store")
    func plantedFindings() async throws {
        let database = try await TestDatabase.create()
        let directory = NSTemporaryDirectory() + "tally-status-" + UUID().uuidString
        try FileManager.default.createDirectory(
            atPath: directory + "/data/dead-letter",
            withIntermediateDirectories: true
        )
        let input = directory + "/planted.ndjson"
        try (Self.planted.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        #expect(try await TestDatabase.tally(["migrate", "--database-url", database.url]).status == 0)
        let ingest = try await TestDatabase.tally([
            "ingest", "Examples/sample/events.ndjson", input, "--store", "postgres", "--store", "file",
            "--database-url", database.url, "--data-dir", directory + "/data", "--quiet",
        ])
        #expect(ingest.status == 0, "\(ingest.stdout)\(ingest.stderr)")
        try await Self.plantFailures(database: database.url, dataDirectory: directory + "/data")

        let registry = ["--registry", "Examples/registry", "--format", "json"] + Self.window
        let postgres = try await TestDatabase.tally(["status", "--database-url", database.url] + registry)
        let file = try await TestDatabase.tally(["status", "--data-dir", directory + "/data"] + registry)
        #expect(postgres.status == 1, "\(postgres.stderr)")
        #expect(file.status == 1, "\(file.stderr)")
        let fromPostgres = try Self.withoutStore(postgres.stdout)
        #expect(fromPostgres == (try Self.withoutStore(file.stdout)))

        let report = try #require(try JSONSerialization.jsonObject(with: Data(postgres.stdout.utf8)) as? [String: Any])
        let neverSeen = try #require(report["never_seen"] as? [[String: Any]])
        #expect(neverSeen.map { $0["event"] as? String } == ["episode_detail_play_tapped"])
        #expect(neverSeen.first?["last_seen"] as? String == "2026-10-15T12:00:00.000000Z")

        let unplanned = try #require(report["unplanned"] as? [[String: Any]])
        #expect(
            unplanned.map { $0["event"] as? String } == ["EpisodeListViewed", "checkout_started", "search_voice_used"]
        )
        let checkout = try #require(unplanned.first { $0["event"] as? String == "checkout_started" })
        #expect(checkout["count"] as? Int == 2)
        #expect(checkout["app_versions"] as? [String] == ["5.0.0", "5.0.1"])
        #expect(checkout["sources"] as? [String] == ["android", "ios"])
        #expect(checkout["features"] as? [String] == ["checkout"])
        #expect(checkout["first_seen"] as? String == "2026-11-09T10:00:00.000000Z")

        let drift = try #require(report["drift"] as? [[String: Any]]).map {
            [$0["event"], $0["kind"], $0["property"], $0["seen_type"], $0["count"]].map { "\($0 ?? "-")" }
                .joined(separator: " ")
        }
        #expect(
            drift == [
                "episode_detail_viewed type_mismatch source integer 1",
                // The sample's own drift: a position that is not a number.
                "episode_list_episode_selected type_mismatch position string 1",
                "player_opened undeclared_property volume <null> 1",
                "player_playback_paused missing_required position_seconds <null> 1",
                "search_query_submitted type_mismatch query_length number 1",
                "search_query_submitted type_mismatch results string 1",
                "search_result_selected missing_required episode_id <null> 1",
            ],
            "\(drift)"
        )
        let rejected = try #require(report["rejected"] as? [[String: Any]])
        #expect(
            rejected.map { "\($0["reason"] ?? "") \($0["count"] ?? "")" } == ["type_mismatch 2", "unknown_event 1"]
        )

        let table = try await TestDatabase.tally(
            ["status", "--data-dir", directory + "/data", "--registry", "Examples/registry"] + Self.window
        )
        #expect(table.stdout.contains("planned, never seen (1):"))
        #expect(table.stdout.contains("status: 13 findings"), "\(table.stdout)")
        await database.drop()
    }

    /// The JSON without its `store` line, which names the store read.
    static func withoutStore(_ text: String) throws -> String {
        text.split(separator: "\n").filter { !$0.contains(#""store":"#) }.joined(separator: "\n")
    }

    /// The failures as the collector keeps them: rows of `tally.failed_events`, lines of
    /// `dead-letter/collector-rejects-DAY.ndjson`.
    static func plantFailures(database: String, dataDirectory: String) async throws {
        let connection = try await PostgresConnection.connect(database)
        var lines: [String: [String]] = [:]
        for (index, (time, reason)) in failures.enumerated() {
            try await connection.query(
                "INSERT INTO tally.failed_events (failed_at, reason, detail, event) VALUES ($1::timestamptz, $2, $3, 'null')",
                [time, reason, "request r\(index) index 0"]
            )
            lines[String(time.prefix(10)), default: []].append(
                #"{"failed_at":"\#(time)","sink":"collector","reason":"\#(reason)","path":"$","message":"m","request_id":"r\#(index)","index":0,"source":"tally","event":null}"#
            )
        }
        await connection.close()
        for (day, dayLines) in lines {
            try (dayLines.joined(separator: "\n") + "\n").write(
                toFile: dataDirectory + "/dead-letter/collector-rejects-\(day).ndjson",
                atomically: true,
                encoding: .utf8
            )
        }
    }
}
