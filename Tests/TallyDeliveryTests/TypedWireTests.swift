import Foundation
import TallyCore
import Testing

@testable import TallyDelivery

/// Property values keep their types from `track()` to the wire: typed values as JSON values, and a
/// string-only event marked as such on both wires (its strings are read as the plan's types only then).
@Suite("Typed values on the wire")
struct TypedWireTests {
    static let time = Timestamp(nanosecondsSinceEpoch: 1_700_000_000_000_000_000)

    static func event(_ properties: EventProperties) -> EventEnvelope {
        EventEnvelope(
            eventID: EventID(high: 1, low: 2),
            name: "checkout_paid",
            properties: properties,
            occurredAt: time
        )
    }

    static func json(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test("tally wire: typed values as JSON numbers and booleans, unmarked; strings marked string_properties")
    func tallyWire() throws {
        let typed = try Self.json(
            WireEncoder.body(
                [Self.event(["amount": 12.5, "items": 3, "gift": true])],
                format: .tally,
                sentAt: Self.time
            )
        )
        #expect(typed["string_properties"] == nil)
        let properties = try #require(typed["properties"] as? [String: Any])
        #expect(properties["amount"] as? Double == 12.5 && properties["items"] as? Int == 3)
        #expect(properties["gift"] as? Bool == true)
        let strings = try Self.json(
            WireEncoder.body(
                [Self.event(EventProperties(strings: ["amount": "30001"]))],
                format: .tally,
                sentAt: Self.time
            )
        )
        #expect(strings["string_properties"] as? Bool == true)
        #expect((strings["properties"] as? [String: Any])?["amount"] as? String == "30001")
    }

    @Test("Segment wire: a string-only event says so in context.stringProperties; a typed one does not")
    func segmentWire() throws {
        func context(_ event: EventEnvelope) throws -> [String: Any] {
            let body = try Self.json(WireEncoder.body([event], format: .segment, sentAt: Self.time))
            let message = try #require((body["batch"] as? [[String: Any]])?.first)
            return try #require(message["context"] as? [String: Any])
        }
        #expect(try context(Self.event(EventProperties(strings: ["amount": "1"])))["stringProperties"] as? Bool == true)
        #expect(try context(Self.event(["amount": 1]))["stringProperties"] == nil)
    }

    @Test("super properties merged into a string-only event keep the mark and their own types")
    func mergeKeepsTheMark() {
        var event = Self.event(EventProperties(strings: ["amount": "30001"]))
        event.context = SuperPropertiesCarrier.context(["plan_level": 2])
        let stage = EventPreparation.Stage.context(nil, network: { nil })
        #expect(stage.prepare(&event))
        #expect(event.stringProperties)
        #expect(event.properties["plan_level"] == .integer(2))
        #expect(event.properties["amount"] == .string("30001"))
    }
}
