import Foundation
import TallyCore
import TallySchema
import TallyTestSupport
import Testing

@Suite("Event validation")
struct EventValidationTests {
    static let validator = EventValidator(registry: try! Fixtures.loadExamples())

    static func corpus() throws -> [(expect: String, line: String)] {
        let path = ConformanceData.repositoryRoot!.appendingPathComponent("Examples/corpus/episode-events.ndjson").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").map { row in
            let value = try JSONParser.parse(String(row))
            return (value["expect"]!.stringValue!, value["line"]!.stringValue!)
        }
    }

    @Test("every corpus line gets its expected verdict and reason code")
    func corpusVerdicts() throws {
        let corpus = try Self.corpus()
        #expect(corpus.count >= 30)
        var seen = Set<String>()
        for (index, (expect, line)) in corpus.enumerated() {
            let result = Self.validator.validate(
                ndjsonLine: Array(line.utf8),
                fallbackID: EventID(high: 7, low: UInt64(index))
            )
            if expect == "valid" {
                #expect(result.isValid, "line \(index + 1): \(result.summary)")
            } else {
                #expect(
                    result.codes.contains { $0.rawValue == expect },
                    "line \(index + 1) expected \(expect): \(result.summary)"
                )
            }
            seen.insert(expect)
        }
        // The corpus covers every reason code tally can give a single event.
        // schema_mismatch needs composite keywords, which the Examples plans do not use (NestedPropertyTests).
        let expected = Set(ReasonCode.allCases.map(\.rawValue)).subtracting([
            "invalid_event_id", "duplicate_field", "schema_mismatch",
        ])
        #expect(expected.subtracting(seen).isEmpty, "not covered: \(expected.subtracting(seen).sorted())")
    }

    @Test("values are normalized to their declared types; feature and version are filled in")
    func normalization() {
        let properties: [String: PropertyValue] = [
            "episode_id": "ep-7", "downloaded": "true", "playback_speed": "1.5", "resume_at_seconds": "12",
        ]
        // Strings from a typed source are not numbers or booleans: plain JSON Schema semantics.
        let typed = Self.validator.validate(Fixtures.event("episode_detail_play_tapped", properties))
        #expect(
            typed.violations.map(\.path).sorted() == [
                "$.properties.downloaded", "$.properties.playback_speed", "$.properties.resume_at_seconds",
            ]
        )
        #expect(typed.codes.allSatisfy { $0 == .typeMismatch })
        // From a producer that can only send strings, they are read as the declared types.
        let event = Fixtures.event("episode_detail_play_tapped", properties, fromStrings: true)
        let result = Self.validator.validate(event)
        #expect(result.isValid, "\(result.summary)")
        #expect(result.event.properties["downloaded"] == .bool(true))
        #expect(result.event.properties["playback_speed"] == .number(1.5))
        #expect(result.event.properties["resume_at_seconds"] == .integer(12))
        #expect(result.event.properties["episode_id"] == .string("ep-7"))
        #expect(result.event.feature == "episode")
        #expect(result.event.schemaVersion == "1-0-1")
    }

    @Test("without a registry: structure, sizes, and names as sent (1–255 bytes, no control characters)")
    func structuralOnly() {
        let validator = EventValidator(registry: nil)
        #expect(validator.validate(Fixtures.event("checkout_started", ["anything": 1])).isValid)
        for name in [
            "checkout", "Order Completed", "$pageview", "Checkout_Started", "ünïcode ✓",
            String(repeating: "a", count: 255),
        ] {
            #expect(validator.validate(Fixtures.event(name)).isValid, "\(name)")
        }
        #expect(validator.validate(Fixtures.event("")).codes == [.missingField])
        #expect(validator.validate(Fixtures.event("tab\there")).codes == [.invalidName])
        #expect(validator.validate(Fixtures.event("c1\u{85}control")).codes == [.invalidName])
        #expect(validator.validate(Fixtures.event(String(repeating: "a", count: 256))).codes == [.tooLarge])
    }

    @Test("messages name the rule, never echo the value")
    func messagesDoNotLeakValues() {
        let secret = "ep-secret-token-123"
        let result = Self.validator.validate(
            Fixtures.event("episode_detail_viewed", ["episode_id": .string(secret), "source": "mail"])
        )
        #expect(!result.isValid)
        #expect(!result.summary.contains(secret))
    }
}
