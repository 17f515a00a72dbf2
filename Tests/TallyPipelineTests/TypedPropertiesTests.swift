import TallyCore
import TallyPipeline
import TallyPipelineTesting
import TallySchema
import Testing
import Tracking

/// Typed values end to end: numeric and boolean strings are read as the plan's types only for a
/// producer that could send nothing but strings; typed sources get plain JSON Schema semantics.
@Suite("Typed properties")
struct TypedPropertiesTests {
    static let plan = """
        {"feature": "shop", "description": "Typed properties.", "screens": ["checkout"], "events": [
          {"name": "checkout_paid", "version": "1-0-0", "description": "Paid.",
           "properties": {"type": "object", "properties": {
             "amount": {"type": "number"}, "items": {"type": "integer"}, "gift": {"type": "boolean"},
             "address": {"type": "object", "properties": {"zip": {"type": "string"}}},
             "extra": {"type": "object"}},
           "required": ["amount"], "additionalProperties": false}}]}
        """

    static func validator() throws -> EventValidator {
        var problems: [SchemaError] = []
        let plan = try #require(TrackingPlanParser().parse(try JSONParser.parse(plan), file: nil, problems: &problems))
        return EventValidator(registry: try SchemaRegistry(plans: [plan]))
    }

    /// An event as a feature writes it: strings only.
    struct StringEvent: TrackingEventContract {
        let name = "checkout_paid"
        let properties: [String: String]
    }

    /// An event as tally-codegen writes it: typed values.
    struct TypedEvent: TypedTrackingEventContract {
        let name = "checkout_paid"
        let typedProperties: [String: TrackingValue]
    }

    static let line = #"{"name":"checkout_paid","occurred_at":"2026-11-22T10:15:00Z","properties":{"amount":"30001"}}"#

    @Test("a JSON \"30001\" for a number property is refused, with the reason")
    func jsonStringIsNoNumber() throws {
        let result = try Self.validator().validate(
            ndjsonLine: Array(Self.line.utf8),
            fallbackID: EventID(high: 1, low: 1)
        )
        #expect(!result.isValid)
        #expect(result.violations.map(\.code) == [.typeMismatch])
        #expect(result.summary.contains("$.properties.amount"), "\(result.summary)")
        #expect(result.summary.contains("expected number, got string"), "\(result.summary)")
        // Booleans and integers alike.
        let more =
            #"{"name":"checkout_paid","occurred_at":"2026-11-22T10:15:00Z","properties":{"amount":1,"items":"2","gift":"true"}}"#
        let other = try Self.validator().validate(ndjsonLine: Array(more.utf8), fallbackID: EventID(high: 1, low: 2))
        #expect(other.violations.map(\.path).sorted() == ["$.properties.gift", "$.properties.items"])
    }

    @Test("the same property from the string-only Tracking contract is accepted, and stored as a number")
    func trackedStringIsANumber() async throws {
        let sink = InMemorySink()
        let pipeline = EventPipeline(sinks: [sink], validation: EventValidation(validator: try Self.validator()))
        try await pipeline.running {
            let tracker = pipeline.tracker()
            tracker.track(StringEvent(properties: ["amount": "30001", "items": "2", "gift": "true"]))
            await pipeline.flush()
        }
        let stored = try #require(sink.events.first)
        #expect(stored.stringProperties)
        #expect(stored.properties["amount"] == .integer(30001))
        #expect(stored.properties["items"] == .integer(2))
        #expect(stored.properties["gift"] == .bool(true))
        #expect(pipeline.statistics.rejected == 0)
    }

    @Test("a string-only event keeps its mark on the wire, and the collector's validator still reads its strings")
    func markSurvivesTheWire() throws {
        let event = EventEnvelope(
            eventID: EventID(high: 2, low: 1),
            name: "checkout_paid",
            properties: EventProperties(strings: StringEvent(properties: ["amount": "30001"]).properties),
            occurredAt: Timestamp(secondsSinceEpoch: 1_790_000_000)
        )
        #expect(event.stringProperties)
        let line = event.ndjsonLine
        #expect(String(decoding: line, as: UTF8.self).contains(#""string_properties":true"#))
        let result = try Self.validator().validate(ndjsonLine: line.dropLast(), fallbackID: EventID(high: 0, low: 0))
        #expect(result.isValid, "\(result.summary)")
        #expect(result.event.properties["amount"] == .integer(30001))
        // Without the mark, the same line is a typed source's.
        let typed = String(decoding: line, as: UTF8.self).replacingOccurrences(
            of: #","string_properties":true"#,
            with: ""
        )
        #expect(
            !(try Self.validator().validate(ndjsonLine: Array(typed.utf8), fallbackID: EventID(high: 0, low: 0)).isValid)
        )
    }

    @Test("typed events carry their values without text: numbers, booleans and nested objects as JSON values")
    func typedEventsStayTyped() async throws {
        let sink = InMemorySink()
        let pipeline = EventPipeline(sinks: [sink], validation: EventValidation(validator: try Self.validator()))
        let event = TypedEvent(typedProperties: [
            "amount": .number(12.5), "items": .integer(3), "gift": .bool(false), "address": .object(["zip": "75001"]),
        ])
        try await pipeline.running {
            pipeline.tracker().track(event)
            // A typed event's string where a number belongs is a bug the plan reports.
            pipeline.tracker().track(TypedEvent(typedProperties: ["amount": .string("30001")]))
            await pipeline.flush()
        }
        let stored = try #require(sink.events.first)
        #expect(sink.events.count == 1)
        #expect(!stored.stringProperties)
        #expect(stored.properties["amount"] == .number(12.5))
        #expect(stored.properties["items"] == .integer(3))
        #expect(stored.properties["gift"] == .bool(false))
        #expect(stored.properties["address"]?.description == #"{"zip":"75001"}"#)
        #expect(!String(decoding: stored.ndjsonLine, as: UTF8.self).contains("string_properties"))
        #expect(pipeline.statistics.rejected == 1)
        // TrackerMock and TrackedEvent still see text.
        #expect(event.properties == ["amount": "12.5", "items": "3", "gift": "false", "address": #"{"zip":"75001"}"#])
    }

    @Test("JSON text (an object the plan does not describe) is sent as its value; text that is not JSON as a string")
    func jsonText() async throws {
        let sink = InMemorySink()
        let pipeline = EventPipeline(sinks: [sink], validation: EventValidation(validator: try Self.validator()))
        try await pipeline.running {
            pipeline.tracker().track(TypedEvent(typedProperties: ["amount": 1, "extra": .json(#"{"k":[1,2]}"#)]))
            pipeline.tracker().track(TypedEvent(typedProperties: ["amount": 2, "extra": .json("not json")]))
            await pipeline.flush()
        }
        #expect(sink.events.count == 1)
        #expect(sink.events.first?.properties["extra"]?.description == #"{"k":[1,2]}"#)
        #expect(pipeline.statistics.rejected == 1)
        #expect(TrackingValue.json(#"{"k":[1,2]}"#).description == #"{"k":[1,2]}"#)
    }

    @Test("TrackingValue's text: what TrackedEvent records for a typed event")
    func text() {
        let value = TrackingValue.object(["b": .array([1, 2.5, true, "x\"y"]), "a": .number(.infinity)])
        #expect(value.description == #"{"a":null,"b":[1,2.5,true,"x\"y"]}"#)
        #expect(TrackingValue.number(.infinity).description == "inf")
    }
}
