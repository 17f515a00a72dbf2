import TallyCore
import Testing

@Suite("Envelope, timestamps and NDJSON")
struct EnvelopeTests {
    static let sample = EventEnvelope(
        eventID: EventID("01934f6e-8a2b-7c3d-9e4f-5a6b7c8d9e0f")!,
        name: "episode_list_episode_selected",
        feature: "episode",
        properties: ["episode_id": "ep-\"42\"", "position": 3, "ratio": 0.5, "new": true, "note": nil],
        occurredAt: Timestamp(rfc3339: "2026-11-22T10:15:00.123456Z")!,
        sentAt: Timestamp(rfc3339: "2026-11-22T10:15:01Z")!,
        receivedAt: Timestamp(rfc3339: "2026-11-22T10:15:02.5Z")!,
        userID: "user-1",
        anonymousID: "install-1",
        sessionID: "session-1",
        context: EventContext(
            appVersion: "4.2.0",
            appBuild: "4217",
            platform: "ios",
            osVersion: "18.1",
            locale: "en-GB"
        ),
        schemaVersion: "1-0-0"
    )

    @Test("NDJSON has snake_case keys in a fixed order, sorted properties, and reads back equal")
    func ndjsonRoundTrip() throws {
        let line = String(decoding: Self.sample.ndjsonLine, as: UTF8.self)
        #expect(
            line == #"{"event_id":"01934f6e-8a2b-7c3d-9e4f-5a6b7c8d9e0f","name":"episode_list_episode_selected","#
                + #""feature":"episode","properties":{"episode_id":"ep-\"42\"","new":true,"note":null,"position":3,"#
                + #""ratio":0.5},"occurred_at":"2026-11-22T10:15:00.123456Z","sent_at":"2026-11-22T10:15:01.000000Z","#
                + #""received_at":"2026-11-22T10:15:02.500000Z","user_id":"user-1","anonymous_id":"install-1","#
                + #""session_id":"session-1","context":{"app_version":"4.2.0","app_build":"4217","platform":"ios","#
                + #""os_version":"18.1","locale":"en-GB"},"schema_version":"1-0-0"}"# + "\n"
        )
        #expect(try EventEnvelope(ndjsonLine: Self.sample.ndjsonLine.dropLast()) == Self.sample)
    }

    @Test("copies are independent values (copy-on-write)")
    func valueSemantics() {
        var copy = Self.sample
        copy.name = "episode_list_viewed"
        copy.properties["position"] = 4
        #expect(Self.sample.name == "episode_list_episode_selected")
        #expect(Self.sample.properties["position"] == 3)
        #expect(copy.properties["position"] == 4)
    }

    @Test("control characters and non-ASCII are escaped or kept so the line stays one line of valid JSON")
    func escaping() throws {
        var event = Self.sample
        event.name = "line\nbreak\u{0}\u{1F}é😀"
        let line = event.ndjsonLine
        #expect(line.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        #expect(try EventEnvelope(ndjsonLine: line.dropLast()).name == event.name)
    }

    @Test(
        "RFC 3339: fractions, offsets and leap years parse; impossible dates do not",
        arguments: [
            ("2026-11-22T10:15:00Z", "2026-11-22T10:15:00.000000Z"),
            ("2026-11-22t10:15:00.5z", "2026-11-22T10:15:00.500000Z"),
            ("2026-11-22T12:15:00.123456789+02:00", "2026-11-22T10:15:00.123456Z"),
            ("2024-02-29T00:00:00-00:30", "2024-02-29T00:30:00.000000Z"),
            ("1969-12-31T23:59:59.999999Z", "1969-12-31T23:59:59.999999Z"),
        ]
    )
    func rfc3339Valid(input: String, expected: String) {
        #expect(Timestamp(rfc3339: input)?.rfc3339 == expected)
    }

    @Test(
        "RFC 3339: malformed timestamps are refused",
        arguments: [
            "2026-11-22", "2026-11-22 10:15:00Z", "2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z",
            "2026-11-22T24:00:00Z",
            "2026-11-22T10:15:00", "2026-11-22T10:15:00.Z", "26-11-22T10:15:00Z", "2026-11-22T10:15:00+2:00", "",
        ]
    )
    func rfc3339Invalid(input: String) {
        #expect(Timestamp(rfc3339: input) == nil)
    }

    @Test("decoding names the field at fault")
    func decodingErrors() {
        func code(_ text: String) -> EnvelopeDecodingError.Code? {
            do {
                _ = try EventEnvelope(ndjsonLine: Array(text.utf8))
                return nil
            } catch {
                return error.code
            }
        }
        let id = #""event_id":"01934f6e-8a2b-7c3d-9e4f-5a6b7c8d9e0f""#
        #expect(code("{") == .malformedJSON)
        #expect(code("[1]") == .notAnObject)
        #expect(code(#"{"name":"a","occurred_at":"2026-11-22T10:15:00Z"}"#) == .missingField)
        #expect(code("{\(id),\"occurred_at\":\"2026-11-22T10:15:00Z\"}") == .missingField)
        #expect(code("{\(id),\"name\":1,\"occurred_at\":\"2026-11-22T10:15:00Z\"}") == .wrongType)
        #expect(code("{\(id),\"name\":\"a\",\"occurred_at\":\"yesterday\"}") == .invalidTimestamp)
        #expect(
            code("{\(id),\"name\":\"a\",\"name\":\"b\",\"occurred_at\":\"2026-11-22T10:15:00Z\"}") == .duplicateField
        )
        #expect(
            code("{\(id),\"name\":\"a\",\"occurred_at\":\"2026-11-22T10:15:00Z\",\"properties\":[1]}")
                == .wrongType
        )
        #expect(code(#"{"event_id":"","name":"a","occurred_at":"2026-11-22T10:15:00Z"}"#) == .invalidEventID)
        #expect(code(#"{"event_id":7,"name":"a","occurred_at":"2026-11-22T10:15:00Z"}"#) == .wrongType)
    }

    @Test("sample_rate: written after the identity fields when below 1, read back, refused out of (0, 1]")
    func sampleRate() throws {
        var sampled = Self.sample
        sampled.sampleRate = 0.1
        let line = String(decoding: sampled.ndjsonLine, as: UTF8.self)
        #expect(line.hasSuffix(#""schema_version":"1-0-0","sample_rate":0.1}"# + "\n"))
        #expect(try EventEnvelope(ndjsonLine: sampled.ndjsonLine.dropLast()) == sampled)
        #expect(try EventEnvelope(ndjsonLine: sampled.ndjsonLine.dropLast()).sampleRate == 0.1)
        #expect(!String(decoding: Self.sample.ndjsonLine, as: UTF8.self).contains("sample_rate"))
        let base =
            #"{"event_id":"01934f6e-8a2b-7c3d-9e4f-5a6b7c8d9e0f","name":"a","occurred_at":"2026-11-22T10:15:00Z""#
        #expect(try EventEnvelope(ndjsonLine: Array((base + #","sample_rate":1}"#).utf8)).sampleRate == nil)
        #expect(try EventEnvelope(ndjsonLine: Array((base + #","sample_rate":null}"#).utf8)).sampleRate == nil)
        #expect(try EventEnvelope(ndjsonLine: Array((base + #","sample_rate":2.5e-1}"#).utf8)).sampleRate == 0.25)
        for bad in ["0", "-0.5", "1.5", #""0.1""#, "true"] {
            #expect(throws: EnvelopeDecodingError.self) {
                try EventEnvelope(ndjsonLine: Array((base + #","sample_rate":"# + bad + "}").utf8))
            }
        }
        // A re-send of a sampled event without its id derives the same content id; the rate is part of it.
        #expect(sampled.contentID != Self.sample.contentID)
    }
}

@Suite("Property values")
struct PropertyValueTests {
    @Test("numbers keep their spelling: typed when tally writes them the same, raw JSON otherwise")
    func numberSpelling() {
        for text in ["1.5", "-12.25", "0.001", "0.0001", "123456789012345.6", "19.99", "0.30000000000000004", "1.0"] {
            guard case .number(let value) = PropertyValue(numberText: text) else {
                Issue.record("\(text) should be a typed number")
                continue
            }
            #expect(JSONWriter.numberText(value) == text)
        }
        for text in ["25.00", "1e3", "0.00001", "1E+2", "-0", "12345678901234567890", "1.50", "100.0000000000000001"] {
            guard case .json(let raw) = PropertyValue(numberText: text) else {
                Issue.record("\(text) should be kept as raw JSON")
                continue
            }
            #expect(raw.text == text)
        }
        #expect(PropertyValue(numberText: "42") == .integer(42))
    }
}
