import TallyClickHouse
import TallyCore
import TallyOperations
import Testing

/// `tally doctor --store clickhouse` on the real two-shard cluster: all well on a fresh one; events
/// refused warn; a node without the latest migration or a node that does not answer fails. In the
/// store's suite, which runs its tests one at a time: each empties the same cluster.
extension ClickHouseStoreTests {
    @Test("a fresh cluster is well; refused events warn; a migration missing on a node fails")
    func doctorChecks() async throws {
        let client = try await TestClickHouse.fresh()
        let fresh = await ClickHouseDoctor().checks(client)
        #expect(fresh.allSatisfy { $0.status == .ok }, "\(fresh)")
        #expect(fresh.filter { $0.name.hasPrefix("node ") }.count == client.endpoints.count)
        #expect(fresh.contains { $0.name == "cluster" && $0.message.hasPrefix("2 shards") })

        let sink = try ClickHouseSink(urls: try TestClickHouse.urls)
        for index in client.endpoints.indices {
            try await client.node(index).execute(
                "ALTER TABLE tally.events_local MODIFY COLUMN session_id Nullable(UInt32)"
            )
        }
        var event = ClickHouseStoreTests.events(1)[0]
        event.sessionID = "s"
        try await sink.write([event])
        let refused = await ClickHouseDoctor().checks(client)
        let failed = try #require(refused.first { $0.name == "failed events" })
        #expect(failed.status == .warning)
        #expect(failed.message.contains("clickhouse_171"))

        try await client.node(1).execute("DROP TABLE tally.schema_migrations")
        let missing = await ClickHouseDoctor().checks(client)
        #expect(missing.contains { $0.name.hasPrefix("migrations on") && $0.status == .failure })
    }

    @Test("a node that does not answer fails; the others are still checked")
    func doctorUnreachable() async throws {
        let urls = try TestClickHouse.urls
        _ = try await TestClickHouse.fresh()
        let client = try ClickHouseClient(urls: urls + ",http://127.0.0.1:1", timeout: .seconds(5))
        let checks = await ClickHouseDoctor().checks(client)
        #expect(checks.contains { $0.name == "node http://127.0.0.1:1" && $0.status == .failure })
        #expect(checks.contains { $0.name == "cluster" && $0.status == .ok })
    }
}
