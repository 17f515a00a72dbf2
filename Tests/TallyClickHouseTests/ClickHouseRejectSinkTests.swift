import TallyClickHouse
import TallyCore
import TallyPipeline
import Testing

// In the store's suite: it runs one test at a time, and each empties the cluster.
extension ClickHouseStoreTests {
    @Test("rejects as rows of tally.failed_events on either shard, with the values PostgreSQL keeps")
    func rejectRows() async throws {
        let client = try await TestClickHouse.fresh()
        let sink = ClickHouseRejectSink(client: client)
        #expect(await sink.isReachable())
        let events = Self.events(2)
        let rejects = [
            Reject(
                content: .event(events[0]),
                reason: Reject.Reason(code: "type_mismatch", path: "$.properties.n", message: "expected string"),
                origin: .request(id: "r-1", index: 3, source: "ios"),
                failedAt: Self.base
            ),
            Reject(
                content: .bytes(Array(#"{"type":"track","event":"Order\tCompleted"}"#.utf8)),
                reason: Reject.Reason(code: "missing_field", path: "$.timestamp", message: "required"),
                origin: .request(id: "r-2", index: 0, source: "web"),
                failedAt: Self.base
            ),
            Reject(
                content: .nothing,
                reason: Reject.Reason(code: "malformed_json", path: "$", message: "not JSON"),
                origin: .request(id: "r-3", index: 0, source: "web"),
                failedAt: Self.base
            ),
            Reject(
                content: .event(events[1]),
                reason: Reject.Reason(code: "timedOut", message: "PipelineError(timedOut): write"),
                origin: .sink(name: "clickhouse", attempts: 5),
                failedAt: Self.base
            ),
        ]
        try await sink.store(rejects)
        try await sink.store([])
        let rows = try await client.rows(
            "SELECT event_id, reason, detail, event FROM tally.failed_events ORDER BY detail"
        )
        let expected = rejects.map { reject in
            [
                reject.event?.eventID.description ?? "", reject.reason.code, reject.detail,
                String(decoding: reject.eventJSON, as: UTF8.self),
            ]
        }
        #expect(rows == expected.sorted { $0[2] < $1[2] })
        #expect(rows.contains { $0[2] == "request r-1 index 3 source ios at $.properties.n: expected string" })

        let unreachable = ClickHouseRejectSink(client: try ClickHouseClient(urls: "http://127.0.0.1:1"))
        #expect(await unreachable.isReachable() == false)
        await #expect(throws: ClickHouseError.self) { try await unreachable.store(rejects) }
    }
}
