import TallyCore
import Testing

@testable import TallyFormats

/// A collector's route implies what a body is: a Segment call type (`/v1/track`), or a PostHog
/// batch sent as a bare array. The decoder reads them as if the body had said so.
struct RouteShapeTests {
    static func decode(_ body: String, format: SourceFormat, shape: FormatDecoder.Shape) -> [String] {
        let bytes = Array(body.utf8)
        let arrived = Timestamp(nanosecondsSinceEpoch: 1_795_000_000_000_000_000)
        return bytes.withUnsafeBufferPointer { buffer in
            FormatDecoder(format: format).decode(buffer, arrivedAt: arrived, shape: shape).results.map { result in
                switch result {
                case .success(let event): String(decoding: event.ndjsonLine, as: UTF8.self)
                case .failure(let error): "error: \(error.code) at \(error.path)"
                }
            }
        }
    }

    @Test(
        "a Segment message without a type takes the route's, on the fast path and through the mapper",
        arguments: [
            #""event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z","properties":{"n":1}"#,
            // A key given twice inside properties: the fast path declines, the mapper answers.
            #""event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z","properties":{"n":1,"n":2}"#,
            #""name":"Home","anonymousId":"a","sentAt":"2026-11-20T10:00:00Z""#,
        ]
    )
    func impliedSegmentType(members: String) {
        let type = members.contains("\"name\"") ? "page" : "track"
        let implied = Self.decode("{\(members)}", format: .segment, shape: .segmentCall(type))
        let explicit = Self.decode(#"{"type":"\#(type)",\#(members)}"#, format: .segment, shape: .asSent)
        #expect(implied == explicit)
        #expect(!implied.isEmpty)
    }

    @Test("a type in the body wins over the route's")
    func bodyTypeWins() {
        let body = #"{"type":"screen","name":"Catalog","userId":"u","timestamp":"2026-11-20T10:00:00Z"}"#
        #expect(
            Self.decode(body, format: .segment, shape: .segmentCall("track"))
                == Self.decode(body, format: .segment, shape: .asSent)
        )
    }

    @Test("a bare PostHog array is the batch; elsewhere an array stays refused")
    func bareArrayIsBatch() {
        let events =
            #"[{"event":"a","distinct_id":"d","timestamp":"2026-11-20T10:00:00Z"},{"event":"b","distinct_id":"d","timestamp":"2026-11-20T10:00:01Z"}]"#
        let bare = Self.decode(events, format: .posthog, shape: .batchOrArray)
        let wrapped = Self.decode(#"{"batch":\#(events)}"#, format: .posthog, shape: .asSent)
        #expect(bare.count == 2)
        #expect(bare == wrapped)
        #expect(Self.decode(events, format: .posthog, shape: .asSent) == ["error: not_an_object at $"])
        #expect(Self.decode("[1]", format: .posthog, shape: .batchOrArray) == ["error: not_an_object at $.batch[0]"])
    }
}
