import Foundation
import TallyCore
import TallyFormats
import TallyTestSupport
import Testing

/// The single-message fast path must give what the mapper gives, or decline.
@Suite("Segment fast path against the mapper")
struct SegmentFastPathTests {
    static let variants: [String] = [
        #"{"type":"track","event":"Order Completed","messageId":"m-1","userId":"u","timestamp":"2026-11-20T10:00:00Z","properties":{"total":27.50,"products":[{"sku":"a","price":1}]},"context":{"app":{"version":"4.2","build":4217},"os":{"name":"iOS","version":"17.1"},"locale":"en-US","ip":"10.0.0.1"}}"#,
        #"{"type":"page","name":"Home","category":"Docs","anonymousId":"a","sentAt":"2026-11-20T10:00:00Z"}"#,
        #"{"type":"screen","name":"Catalog","properties":{"name":"Own"},"userId":"u","originalTimestamp":"2026-11-20T10:00:00Z","timestamp":"2026-11-20T10:00:01Z"}"#,
        #"{"type":"identify","traits":{"email":"a@b.c","address":{"city":"Oslo"}},"userId":"u","receivedAt":"2026-11-20T10:00:00Z","properties":{"x":1,"x":2}}"#,
        #"{"type":"group","groupId":"g-1","traits":{"name":"Acme"},"userId":"u","timestamp":"2026-11-20T10:00:00Z"}"#,
        #"{"type":"alias","previousId":"anon-1","userId":"u","timestamp":"2026-11-20T10:00:00Z"}"#,
        #"{"type":"track","event":"A","messageId":"0DE2B9E8-4C1F-4E2B-9A7D-1F2E3D4C5B6A","userId":42,"timestamp":"2026-11-20T10:00:00Z"}"#,
        #"{"type":"track","event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z","properties":null,"context":null}"#,
        #"{"type":"track","event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z","integrations":{"All":true,"Mixpanel":false}}"#,
        #"{"type":"track","event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z","context":{"integrations":{"x":1}},"integrations":{"All":true}}"#,
        #"{"type":"track","event":"A","messageId":7,"userId":"u","timestamp":"2026-11-20T10:00:00Z"}"#,
        #"{"type":"track","event":"A","messageId":"","userId":"u","timestamp":"2026-11-20T10:00:00Z"}"#,
        #"{"type":"track","type":"track","event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z"}"#,
        #"{"\u0074ype":"track","event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z","version":2,"channel":"server","_metadata":{"bundled":["x"]}}"#,
        #"{"type":"track","event":"A","userId":"u","timestamp":"2026-11-20 10:00:00.123"}"#,
        #"{"type":"track","event":"A","timestamp":"2026-11-20T10:00:00Z"}"#,
        #"{"type":"track","userId":"u","timestamp":"2026-11-20T10:00:00Z"}"#,
        #"{"type":"signup","userId":"u","timestamp":"2026-11-20T10:00:00Z"}"#,
        #"{"type":"group","userId":"u","timestamp":"2026-11-20T10:00:00Z"}"#,
        #"{"type":"alias","userId":"u","timestamp":"2026-11-20T10:00:00Z","previousId":null}"#,
        #"{"type":"track","event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z","properties":[1]}"#,
        #"{"type":"track","event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z","properties":{"a":1,"a":2}}"#,
        #"{"type":"track","event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z","context":{"app_version":"1","locale":7,"platform":"ios"}}"#,
        #"{"type":"track","event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z","occurred_at":"x"}"#,
        #"{"type":"track","event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z"} x"#,
        #"{"type":"track","event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z","#,
        #"{"type":"track","event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z","sentAt":"2026-11-20T10:00:09Z","receivedAt":"2026-11-20T10:00:10Z"}"#,
        #"{ "type" : "track" , "event" : "Spaced" , "userId" : "u" , "timestamp" : "2026-11-20T10:00:00Z" , "properties" : { "b" : [ 1 , 2 ] , "a" : "x" } }"#,
        #"{"type":"track","event":"Ünïcode","userId":"ü","timestamp":"2026-11-20T10:00:00Z","properties":{"ключ":"значение"}}"#,
        #"{"batch":[{"type":"track","event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z"}]}"#,
    ]

    static func mapped(_ line: String) -> [Result<EventEnvelope, EnvelopeDecodingError>] {
        [UInt8](line.utf8).withUnsafeBufferPointer { bytes -> [Result<EventEnvelope, EnvelopeDecodingError>] in
            do throws(EnvelopeDecodingError) {
                return SegmentMessageMapper().map(try ForeignLine(bytes))
            } catch {
                return [.failure(error)]
            }
        }
    }

    @Test("every sample line and edge case: the fast path equals the mapper, or declines")
    func agreesWithTheMapper() throws {
        var lines = Self.variants + ForeignSamples(count: 400).segmentLines
        if let sample = try? String(contentsOfFile: "Examples/sample/segment.ndjson", encoding: .utf8) {
            lines += sample.split(separator: "\n").map(String.init)
        }
        var fast = 0
        for line in lines {
            let expected = Self.mapped(line)
            let decoded = Array(line.utf8).withUnsafeBufferPointer { FormatDecoder(format: .segment).decode($0) }
            #expect(decoded.results.map(Self.describe) == expected.map(Self.describe), "\(line)")
            if let event = Array(line.utf8).withUnsafeBufferPointer({ SegmentLineDecoder.decode($0) }) {
                fast += 1
                #expect(expected.count == 1, "\(line)")
                #expect((try? expected.first?.get()) == event, "\(line)")
                // `auto` reads such a line as Segment too, by the same path.
                let auto = Array(line.utf8).withUnsafeBufferPointer { FormatDecoder(format: .auto).decode($0) }
                #expect(auto.format == .segment && auto.results.map(Self.describe) == expected.map(Self.describe))
            }
        }
        // The ordinary single messages take the fast path.
        #expect(fast >= lines.count / 2, "fast path took \(fast) of \(lines.count)")
    }

    static func describe(_ result: Result<EventEnvelope, EnvelopeDecodingError>) -> String {
        switch result {
        case .success(let event): event.ndjsonLineString
        case .failure(let error): "\(error.code) \(error.path) \(error.message)"
        }
    }
}

extension EventEnvelope {
    fileprivate var ndjsonLineString: String { String(decoding: ndjsonLine, as: UTF8.self) }
}
