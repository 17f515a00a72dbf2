import Foundation
import TallyClickHouse
import Testing

/// The throwaway two-shard cluster scripts/test.sh starts (`$TALLY_TEST_CLICKHOUSE_URL`: both
/// nodes, comma-separated). Without it a test is skipped, or fails under
/// `TALLY_TEST_REQUIRE_CLICKHOUSE=1` (scripts/test.sh).
enum TestClickHouse {
    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "TALLY_TEST_REQUIRE_CLICKHOUSE=1 but TALLY_TEST_CLICKHOUSE_URL is empty (did tally_ch_start fail?)"
        }
    }

    static var urls: String {
        get throws {
            let environment = ProcessInfo.processInfo.environment
            if let urls = environment["TALLY_TEST_CLICKHOUSE_URL"], !urls.isEmpty { return urls }
            if environment["TALLY_TEST_REQUIRE_CLICKHOUSE"] == "1" { throw Missing() }
            try Test.cancel("skipped: no TALLY_TEST_CLICKHOUSE_URL (scripts/test.sh starts a two-shard cluster)")
        }
    }

    /// Both nodes, emptied and migrated.
    static func fresh() async throws -> ClickHouseClient {
        let client = try ClickHouseClient(urls: try urls)
        for index in client.endpoints.indices {
            try await client.node(index).execute("DROP DATABASE IF EXISTS tally")
        }
        _ = try await ClickHouseMigrator(client: client).migrate()
        return client
    }
}
