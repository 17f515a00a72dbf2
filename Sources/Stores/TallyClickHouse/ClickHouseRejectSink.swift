package import TallyPipeline

/// Keeps rejects in ClickHouse's `tally.failed_events`, one row each, with the values PostgreSQL
/// keeps (``ClickHouseRowEncoder/appendFailed(_:to:)``), in one insert that returns once every
/// shard concerned stored its rows.
///
/// `tally serve --sink clickhouse` keeps its rejects here; ``ClickHouseSink`` the events the
/// server refused.
package struct ClickHouseRejectSink: RejectSink {
    private let client: ClickHouseClient
    private let settings: [(String, String)]

    /// A sink writing through `client`, with the insert `settings` (`insert_distributed_sync = 1`
    /// by default).
    package init(client: ClickHouseClient, settings: [(String, String)] = [("insert_distributed_sync", "1")]) {
        self.client = client
        self.settings = settings
    }

    /// Inserts `rejects`.
    /// - Throws: ``ClickHouseError``; none of them is kept then.
    package func store(_ rejects: [Reject]) async throws {
        guard !rejects.isEmpty else { return }
        var writer = RowBinaryWriter()
        for reject in rejects { ClickHouseRowEncoder.appendFailed(reject, to: &writer) }
        try await client.insert(ClickHouseRowEncoder.failedInsert, data: writer.bytes, settings: settings)
    }
}

extension ClickHouseRejectSink: ReadinessProbe {
    /// Whether a node answers.
    package func isReachable() async -> Bool {
        await client.ping()
    }
}
