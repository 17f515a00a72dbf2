import Foundation
import TallyPostgres
import TallyTestSupport
import Testing

/// What every fault test checks afterwards: the stores hold exactly the distinct valid events,
/// and every derived table agrees with them.
enum StoreChecks {
    /// Rollups and per-day user sets agree with the raw events, feature by feature, and nothing
    /// is stored twice.
    static func expectDerivedTablesExact(_ url: String, sourceLocation: SourceLocation = #_sourceLocation) async throws
    {
        let connection = try await PostgresConnection.connect(url)
        let pairs: [(String, String)] = [
            (
                "SELECT feature, count(*) FROM tally.events GROUP BY 1 ORDER BY 1",
                "SELECT feature, sum(events) FROM tally.rollup_hourly GROUP BY 1 ORDER BY 1"
            ),
            (
                """
                SELECT date_trunc('hour', occurred_at, 'UTC')::text || ' ' || feature || ' ' || name, count(*)
                FROM tally.events GROUP BY 1 ORDER BY 1
                """,
                "SELECT hour::text || ' ' || feature || ' ' || name, sum(events) FROM tally.rollup_hourly GROUP BY 1 ORDER BY 1"
            ),
            (
                """
                SELECT feature, count(*) FROM (SELECT DISTINCT (occurred_at AT TIME ZONE 'UTC')::date, feature,
                coalesce(user_id, anonymous_id) FROM tally.events WHERE coalesce(user_id, anonymous_id) IS NOT NULL) d
                GROUP BY 1 ORDER BY 1
                """,
                "SELECT feature, count(*) FROM tally.daily_actors GROUP BY 1 ORDER BY 1"
            ),
            (
                "SELECT 'events', count(*) FROM tally.events",
                "SELECT 'events', count(DISTINCT event_id) FROM tally.events"
            ),
        ]
        for (raw, derived) in pairs {
            let expected = try await connection.query(raw).map { $0.map { $0 ?? "" } }
            let actual = try await connection.query(derived).map { $0.map { $0 ?? "" } }
            #expect(expected == actual, "\(derived)", sourceLocation: sourceLocation)
        }
        await connection.close()
    }

    /// The per-feature summary from PostgreSQL equals the one from the file store.
    static func expectSummariesAgree(
        url: String,
        dataDirectory: String,
        sourceLocation: SourceLocation = #_sourceLocation
    )
        async throws
    {
        let fromDatabase = try await TestDatabase.tally([
            "summary", "--by", "feature", "--format", "csv", "--database-url", url,
        ])
        let fromFiles = try await TestDatabase.tally([
            "summary", "--by", "feature", "--format", "csv", "--data-dir", dataDirectory,
        ])
        #expect(fromDatabase.status == 0 && fromFiles.status == 0, "\(fromDatabase.stderr)\(fromFiles.stderr)")
        #expect(fromDatabase.stdout == fromFiles.stdout, sourceLocation: sourceLocation)
    }

    /// The JSON report of `tally ingest --report json`.
    static func report(_ stdout: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]) ?? [:]
    }
}
