import Foundation
import TallyCore
import TallySchema
import Testing

/// Properties of any JSON against plans written with JSON Schema in depth.
@Suite("Nested properties")
struct NestedPropertyTests {
    static let plan = """
        {"feature": "shop", "description": "An imported plan.", "naming": "as_sent", "normalize_strings": false,
         "events": [
          {"name": "Order Completed", "version": "1-0-0", "description": "d",
           "properties": {"type": "object", "properties": {
             "order_id": {"type": "string"},
             "coupon": {"type": ["string", "null"]},
             "revenue": {"type": "number", "minimum": 0},
             "products": {"type": "array", "minItems": 1, "items": {"type": "object", "properties": {
               "sku": {"type": "string"}, "price": {"type": "number", "minimum": 0},
               "quantity": {"type": "integer", "minimum": 1}}, "required": ["sku", "price"]}},
             "shipping": {"anyOf": [{"type": "string", "enum": ["free"]}, {"type": "number"}]},
             "level": {"enum": ["gold", "silver", 3]}},
           "required": ["order_id", "products"]}}]}
        """

    static let tracked = """
        {"feature": "episode", "description": "A plan for Tracking features.", "screens": ["episode_list"],
         "events": [{"name": "episode_list_episode_selected", "version": "1-0-0", "description": "d",
           "properties": {"type": "object", "properties": {"episode_id": {"type": "string"},
             "position": {"type": "integer"}}, "required": ["episode_id", "position"]}}]}
        """

    static func validator(_ text: String) throws -> EventValidator {
        var problems: [SchemaError] = []
        let plan = try #require(TrackingPlanParser().parse(try JSONParser.parse(text), file: nil, problems: &problems))
        #expect(problems.isEmpty, "\(problems)")
        return EventValidator(registry: try SchemaRegistry(plans: [plan]))
    }

    static func event(_ name: String, _ properties: String) throws -> EventEnvelope {
        try EventEnvelope(
            ndjsonLine: Array(
                #"{"event_id":"0192f5e4-8c3a-7b21-9f00-1a2b3c4d5e6f","name":"\#(name)","occurred_at":"2026-11-20T10:00:00Z","properties":\#(properties)}"#
                    .utf8
            )
        )
    }

    @Test("nested objects and arrays validate at every depth, with the path of the fault")
    func nestedArrays() throws {
        let validator = try Self.validator(Self.plan)
        let good = try Self.event(
            "Order Completed",
            #"{"order_id":"o1","coupon":null,"revenue":25.00,"products":[{"sku":"a","price":19.99,"quantity":1},{"sku":"b","price":3}],"shipping":"free","level":3}"#
        )
        let verdict = validator.validate(good)
        #expect(verdict.isValid, "\(verdict.summary)")
        #expect(verdict.event.properties["revenue"]?.description == "25.00")
        #expect(verdict.event == good.with(feature: "shop", schemaVersion: "1-0-0"))

        let bad = try Self.event(
            "Order Completed",
            #"{"order_id":"o1","products":[{"sku":"a","price":1},{"sku":"b","price":-1,"quantity":0}],"shipping":true}"#
        )
        let result = validator.validate(bad)
        #expect(result.violations.contains { $0.code == .outOfRange && $0.path == "$.properties.products[1].price" })
        #expect(result.violations.contains { $0.code == .outOfRange && $0.path == "$.properties.products[1].quantity" })
        #expect(result.violations.contains { $0.code == .schemaMismatch && $0.path == "$.properties.shipping" })
        let empty = validator.validate(try Self.event("Order Completed", #"{"order_id":"o1","products":[]}"#))
        #expect(empty.codes == [.outOfRange])
        let missingSKU = validator.validate(
            try Self.event("Order Completed", #"{"order_id":"o1","products":[{"price":1}]}"#)
        )
        #expect(missingSKU.violations.map(\.path) == ["$.properties.products[0].sku"])
        #expect(missingSKU.codes == [.missingProperty])
    }

    @Test("a required type: string property sent as null is rejected; null only where the type allows it")
    func nullIsNotAString() throws {
        let imported = try Self.validator(Self.plan)
        let nullID = imported.validate(
            try Self.event("Order Completed", #"{"order_id":null,"products":[{"sku":"a","price":1}]}"#)
        )
        #expect(nullID.codes == [.typeMismatch])
        #expect(nullID.violations.first?.path == "$.properties.order_id")
        let tracked = try Self.validator(Self.tracked)
        let nullEpisode = tracked.validate(
            try Self.event("episode_list_episode_selected", #"{"episode_id":null,"position":1}"#)
        )
        #expect(nullEpisode.codes == [.typeMismatch])
    }

    @Test("normalize_strings: plans for Tracking features read \"1\" as 1; imported plans do not")
    func normalization() throws {
        let tracked = try Self.validator(Self.tracked)
        let fromContract = EventEnvelope(
            eventID: EventID(high: 1, low: 1),
            name: "episode_list_episode_selected",
            properties: EventProperties(strings: ["episode_id": "ep-1", "position": "1"]),
            occurredAt: Timestamp(nanosecondsSinceEpoch: 0)
        )
        let normalized = tracked.validate(fromContract)
        #expect(normalized.isValid)
        #expect(normalized.event.properties["position"] == .integer(1))
        let imported = try Self.validator(Self.plan)
        let strings = imported.validate(
            try Self.event("Order Completed", #"{"order_id":"o1","revenue":"25","products":[{"sku":"a","price":1}]}"#)
        )
        #expect(strings.codes == [.typeMismatch])
    }

    @Test("limits on depth, nested values, nested keys and strings reject with too_large, never truncate")
    func limits() throws {
        let validator = EventValidator(
            registry: nil,
            limits: ValidationLimits(maxKeyLength: 8, maxValueLength: 16, maxDepth: 3, maxNestedValues: 10)
        )
        func codes(_ properties: String) throws -> [ReasonCode] {
            validator.validate(try Self.event("x", properties)).codes
        }
        #expect(try codes(#"{"a":{"b":{"c":[1]}}}"#) == [])
        #expect(try codes(#"{"a":{"b":{"c":{"d":[1]}}}}"#) == [.tooLarge])
        #expect(try codes(#"{"a":[1,2,3,4,5,6,7,8,9,10,11]}"#) == [.tooLarge])
        #expect(try codes(#"{"a":{"averyverylongkey":1}}"#) == [.tooLarge])
        #expect(try codes(#"{"a":["this string is far too long"]}"#) == [.tooLarge])
        let deep = validator.validate(try Self.event("x", #"{"a":{"b":{"c":{"d":[1]}}}}"#))
        #expect(deep.violations.first?.path == "$.properties.a.b.c.d")
    }
}

extension EventEnvelope {
    fileprivate func with(feature: String, schemaVersion: String) -> EventEnvelope {
        var copy = self
        copy.feature = feature
        copy.schemaVersion = schemaVersion
        return copy
    }
}
