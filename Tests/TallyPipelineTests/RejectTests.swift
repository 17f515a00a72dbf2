import InMemoryLogging
import Logging
import TallyCore
import TallyPipeline
import TallyPipelineTesting
import Testing

/// The one reject value and its one JSON line: every origin and content written and read back, the
/// lines of earlier releases still read, the values of a `tally.failed_events` row.
@Suite("Rejects")
struct RejectTests {
    static let time = Timestamp(rfc3339: "2026-11-22T10:00:01.5Z")!

    static let event = EventEnvelope(
        eventID: EventID(high: 0x0190_0000_0000_7000, low: 0x8000_0000_0000_0001),
        name: "episode_list_viewed",
        feature: "episode",
        properties: ["position": .string("3"), "note": .string("tab\tquote\" ✓")],
        occurredAt: time,
        receivedAt: time,
        userID: "user-1"
    )

    /// One of each: origin × content.
    static var all: [Reject] {
        let validation = Reject.Reason(
            code: "type_mismatch",
            path: "$.properties.position",
            message: "expected integer"
        )
        let segment = Array(#"{"type":"track","event":"Order Completed","timestamp":"yesterday"}"#.utf8)
        let line = Array("not json, and not UTF-8: \u{FF}".utf8) + [0xFF, 0xFE]
        return [
            Reject(
                content: .event(event),
                reason: Reject.Reason(code: "connection", message: "PostgresError(connection): refused"),
                origin: .sink(name: "postgres", attempts: 5),
                failedAt: time
            ),
            Reject(
                content: .event(event),
                reason: validation,
                origin: .sink(name: "validation", attempts: 0),
                failedAt: time
            ),
            Reject(
                content: .event(event),
                reason: validation,
                origin: .request(id: "r-1", index: 2, source: "ios"),
                failedAt: time
            ),
            Reject(
                content: .bytes(segment),
                reason: Reject.Reason(code: "invalid_timestamp", path: "$.timestamp", message: "not RFC 3339"),
                origin: .request(id: "r-2", index: 0, source: "web"),
                failedAt: time
            ),
            Reject(
                content: .nothing,
                reason: Reject.Reason(code: "malformed_json", path: "$", message: "not JSON"),
                origin: .request(id: "r-3", index: 0, source: "web"),
                failedAt: time
            ),
            Reject(
                content: .bytes(Array(#"{"name":"x","occurred_at":"2026-11-22T10:00:00Z"}"#.utf8)),
                reason: Reject.Reason(code: "unknown_event", path: "$.name", message: "not in the plans"),
                origin: .line(file: "export.ndjson", line: 12),
                failedAt: time
            ),
            Reject(
                content: .bytes(line),
                reason: Reject.Reason(code: "malformed_json", path: "$", message: "not JSON"),
                origin: .line(file: "<stdin>", line: 3),
                failedAt: time
            ),
            Reject(
                content: .nothing,
                reason: Reject.Reason(code: "too_large", path: "$", message: "line of 2000000 bytes"),
                origin: .line(file: "big.ndjson", line: 1),
                failedAt: time
            ),
        ]
    }

    @Test("every origin and content is written as one JSON line and read back equal")
    func roundTrip() throws {
        for reject in Self.all {
            let line = reject.jsonLine
            #expect(line.last == UInt8(ascii: "\n"))
            #expect(line.dropLast().allSatisfy { $0 != UInt8(ascii: "\n") }, "one line: \(reject)")
            let value = try JSONParser.parse(line)
            #expect(value["reason"]?.stringValue == reject.reason.code)
            #expect(Reject(jsonLine: line) == reject, "\(String(decoding: line, as: UTF8.self))")
        }
    }

    @Test("the lines keep the members of each file as before, in the same order")
    func members() throws {
        func keys(_ reject: Reject) throws -> [String] {
            guard case .object(let members) = try JSONParser.parse(reject.jsonLine) else { return [] }
            return members.map(\.key)
        }
        let all = Self.all
        #expect(try keys(all[0]) == ["failed_at", "sink", "reason", "message", "attempts", "event"])
        #expect(
            try keys(all[2]) == [
                "failed_at", "sink", "reason", "path", "message", "request_id", "index", "source", "event",
            ]
        )
        #expect(try keys(all[5]) == ["failed_at", "source", "line", "reason", "path", "message", "raw"])
        #expect(try keys(all[6]) == ["failed_at", "source", "line", "reason", "path", "message", "raw", "raw_base64"])
        #expect(try keys(all[7]) == ["failed_at", "source", "line", "reason", "path", "message"])
        // The collector's line, byte for byte as it was written before there was one encoding.
        var expected = #"{"failed_at":"2026-11-22T10:00:01.500000Z","sink":"collector","reason":"type_mismatch","#
        expected += #""path":"$.properties.position","message":"expected integer","request_id":"r-1","index":2,"#
        expected += #""source":"ios","event":"# + String(decoding: Self.event.ndjsonLine.dropLast(), as: UTF8.self)
        expected += "}\n"
        #expect(String(decoding: all[2].jsonLine, as: UTF8.self) == expected)
        // An event that cannot be decoded stays as sent; no event at all is null.
        #expect(try JSONParser.parse(all[3].jsonLine)["event"]?["timestamp"]?.stringValue == "yesterday")
        #expect(try JSONParser.parse(all[4].jsonLine)["event"] == .null)
    }

    @Test("lines written before the one encoding are read: dead letters, collector and ingest rejects")
    func earlierLines() throws {
        let envelope = String(decoding: Self.event.ndjsonLine.dropLast(), as: UTF8.self)
        let deadLetter = try #require(
            Reject(
                jsonLine: Array(
                    #"{"failed_at":"2026-11-22T12:00:00.000000Z","sink":"file","reason":"write events: No space left on device","attempts":10,"event":\#(envelope)}"#
                        .utf8
                )
            )
        )
        #expect(deadLetter.origin == .sink(name: "file", attempts: 10))
        #expect(deadLetter.reason == Reject.Reason(code: "write events: No space left on device", message: ""))
        #expect(deadLetter.event == Self.event)
        let ingest = try #require(
            Reject(
                jsonLine: Array(
                    #"{"source":"export.ndjson","line":3,"reason":"unknown_property","path":"$.properties.coupon","message":"not declared","raw":"{\"a\":1}"}"#
                        .utf8
                )
            )
        )
        #expect(ingest.origin == .line(file: "export.ndjson", line: 3))
        #expect(ingest.content == .bytes(Array(#"{"a":1}"#.utf8)))
        #expect(ingest.failedAt == Timestamp(nanosecondsSinceEpoch: 0))
        #expect(Reject(jsonLine: Array(#"{"name":"x"}"#.utf8)) == nil, "not a reject")
        #expect(Reject(jsonLine: Array("not json".utf8)) == nil)
    }

    @Test("a tally.failed_events row: event id, code, detail with the origin, the event as one JSON value")
    func tableRow() throws {
        let all = Self.all
        #expect(all[0].eventID == Self.event.eventID)
        #expect(all[0].detail == "PostgresError(connection): refused")
        #expect(all[1].detail == "at $.properties.position: expected integer")
        #expect(all[2].detail == "request r-1 index 2 source ios at $.properties.position: expected integer")
        #expect(all[5].detail == "export.ndjson:12 at $.name: not in the plans")
        #expect(all[2].eventJSON == Array(Self.event.ndjsonLine.dropLast()))
        #expect(all[4].eventJSON == Array("null".utf8))
        for reject in all {
            #expect((try? JSONParser.parse(reject.eventJSON)) != nil, "event::jsonb reads every row: \(reject)")
        }
        #expect(all[3].eventID == nil)
    }

    @Test("a console names where and why")
    func description() {
        let all = Self.all
        #expect("\(all[5])" == "export.ndjson:12: unknown_event at $.name: not in the plans")
        #expect("\(all[7])" == "big.ndjson:1: too_large: line of 2000000 bytes")
        #expect("\(all[2])" == "request r-1 index 2: type_mismatch at $.properties.position: expected integer")
        #expect("\(all[0])" == "postgres after 5 attempts: connection: PostgresError(connection): refused")
    }

    @Test("the logging sink logs each reject's whole line at error")
    func loggingSink() async throws {
        let handler = InMemoryLogHandler()
        let logger = Logger(label: "test") { _ in handler }
        try await LoggingRejectSink(logger: logger).store(Array(Self.all.prefix(3)))
        #expect(handler.entries.count == 3)
        #expect(handler.entries.allSatisfy { $0.level == .error })
        let line = try #require(handler.entries.first?.metadata["tally.reject"]).description
        #expect(Reject(jsonLine: Array(line.utf8)) == Self.all[0])
    }

    @Test("a dead-letter sink that fails: the events are counted lost, never silently dropped")
    func failingDeadLetterSink() async throws {
        let sink = InMemorySink(name: "down")
        sink.fail(with: SinkDown())
        let deadLetters = InMemoryRejectSink()
        deadLetters.fail(with: SinkDown())
        var configuration = PipelineConfiguration(maxBatchSize: 5)
        configuration.retry = RetryPolicy(maxAttempts: 1)
        let pipeline = EventPipeline(sinks: [sink], deadLetters: deadLetters, configuration: configuration)
        try await pipeline.running {
            try await pipeline.send(contentsOf: TestEvents.events(count: 5))
        }
        #expect(deadLetters.rejects.isEmpty)
        #expect(pipeline.statistics.lost == 5)
        #expect(pipeline.statistics.deadLettered == 0)
    }
}
