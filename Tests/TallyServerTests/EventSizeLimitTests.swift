import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TallySchema
import TallyTestSupport
import Testing

@testable import TallyServer

/// The event size limit at its boundary, through the routes: an envelope of exactly the limit is
/// stored, one byte more is rejected alone with `too_large` and kept in the dead letters, and the
/// request's other events are stored.
@Suite("Event size limit")
struct EventSizeLimitTests {
    static let limit = ValidationLimits.defaultMaxEventBytes

    @Test("32 KiB is the limit of serve, ingest and the app's delivery, defined once")
    func oneLimit() {
        #expect(Self.limit == 32 * 1024)
        #expect(ValidationLimits().maxEventBytes == Self.limit)
    }

    @Test("tally NDJSON: exactly the limit stored, one byte more rejected with its size and dead-lettered")
    func boundary() async throws {
        let fixture = RouterTests.Fixture()
        let exact = try SizedEvent.line(envelopeBytes: Self.limit, id: 1)
        let over = try SizedEvent.line(envelopeBytes: Self.limit + 1, id: 2)
        let small = try SizedEvent.line(envelopeBytes: 400, id: 3)
        let body = [exact, over, small].joined(separator: "\n") + "\n"
        let response = try await fixture.test { client in
            try await client.execute(
                uri: "/v1/events",
                method: .post,
                headers: RouterTests.bearer + [.contentType: "application/x-ndjson"],
                body: .init(string: body)
            )
        }
        #expect(response.status == .ok)
        let reply = try RouterTests.json(response)
        #expect(reply["accepted"] as? Int == 2)
        let rejected = try #require((reply["rejected"] as? [[String: Any]])?.first)
        #expect(rejected["index"] as? Int == 1)
        #expect(rejected["reason"] as? String == "too_large")
        #expect(rejected["path"] as? String == "$")
        #expect(
            rejected["message"] as? String
                == "\(Self.limit + 1) bytes as an NDJSON envelope, over the \(Self.limit)-byte event limit"
        )
        #expect(fixture.sink.events.map { $0.ndjsonLine.count - 1 }.sorted() == [400, Self.limit])
        let reject = try #require(fixture.rejects.rejects.first)
        #expect(reject.index == 1 && reject.reason.code == "too_large")
        // The whole envelope is kept, nothing truncated: it can be fixed and sent again.
        #expect(reject.eventJSON.count == Self.limit + 1)
    }

    @Test("Segment batch: an oversized message is rejected alone and kept; the others are stored")
    func segment() async throws {
        let fixture = RouterTests.Fixture()
        let padding = String(repeating: "p", count: 12_000)
        let big = (0..<3).map { #""p\#($0)":"\#(padding)""# }.joined(separator: ",")
        let body =
            #"{"batch":[{"type":"track","event":"A","userId":"u","messageId":"small","timestamp":"2026-11-22T10:00:00Z"},"#
            + #"{"type":"track","event":"B","userId":"u","messageId":"big","timestamp":"2026-11-22T10:00:00Z","properties":{\#(big)}}]}"#
        let response = try await fixture.test { client in
            try await client.execute(
                uri: "/v1/batch",
                method: .post,
                headers: RouterTests.bearer,
                body: .init(string: body)
            )
        }
        #expect(response.status == .ok)
        #expect(fixture.sink.eventCount == 1)
        let reject = try #require(fixture.rejects.rejects.first)
        #expect(reject.index == 1 && reject.reason.code == "too_large")
        #expect(reject.reason.message.hasSuffix("over the \(Self.limit)-byte event limit"))
    }
}
