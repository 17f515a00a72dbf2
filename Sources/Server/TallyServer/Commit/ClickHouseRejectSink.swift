package import TallyClickHouse
import TallyCore

/// Rejected events in ClickHouse's `tally.failed_events`, one row each (reason, path and message
/// in `detail`, the event's JSON in `event`), inserted before ``store(_:)`` returns.
package struct ClickHouseRejectSink: RejectSink {
    private let client: ClickHouseClient

    package init(client: ClickHouseClient) {
        self.client = client
    }

    package func store(_ rejects: [RejectedEvent]) async throws {
        guard !rejects.isEmpty else { return }
        var writer = RowBinaryWriter()
        for reject in rejects {
            writer.string("")
            writer.string(reject.reason)
            var detail: [UInt8] = []
            reject.appendNDJSON(to: &detail)
            if detail.last == UInt8(ascii: "\n") { detail.removeLast() }
            writer.string(bytes: detail)
            writer.string(bytes: reject.event ?? Array("null".utf8))
        }
        try await client.insert(
            ClickHouseRowEncoder.failedInsert,
            data: writer.bytes,
            settings: [("insert_distributed_sync", "1")]
        )
    }

    package func isReachable() async -> Bool {
        await client.ping()
    }
}
