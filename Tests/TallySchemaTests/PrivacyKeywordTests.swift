import Foundation
import TallyCore
import TallySchema
import Testing

@Suite("Plan keywords: x-tally-personal-data, x-tally-sample-rate")
struct PrivacyKeywordTests {
    static func plan(_ events: String) -> String {
        #"{ "feature": "shop", "description": "A shop.", "screens": ["cart"], "events": [\#(events)] }"#
    }

    static func event(properties: String, extra: String = "") -> String {
        #"{"name": "cart_viewed", "version": "1-0-0", "description": "d"\#(extra), "properties": \#(properties)}"#
    }

    static func load(_ text: String) throws -> SchemaRegistry {
        let directory = try Fixtures.registry(["shop.json": text])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try SchemaRegistry.load(directory: directory)
    }

    @Test("marks on properties, nested objects, array elements and through $ref become rules")
    func rules() throws {
        let properties = #"""
            {"type": "object", "definitions": {"phone": {"type": "string", "x-tally-personal-data": "remove"}},
             "properties": {
               "email": {"type": "string", "x-tally-personal-data": "hash"},
               "customer": {"type": "object", "properties": {
                  "name": {"type": "string", "x-tally-personal-data": "remove"},
                  "tier": {"type": "string"}}},
               "contacts": {"type": "array", "items": {"type": "object", "properties": {
                  "email": {"type": "string", "x-tally-personal-data": "hash"}}}},
               "pair": {"type": "array", "items": [{"type": "string"}, {"type": "string", "x-tally-personal-data": "hash"}]},
               "phone": {"$ref": "#/definitions/phone"},
               "note": {"type": "string", "x-tally-personal-data": "remove"}
             }, "required": ["email"]}
            """#
        let registry = try Self.load(
            Self.plan(Self.event(properties: properties, extra: #", "x-tally-sample-rate": 0.1"#))
        )
        let event = try #require(registry.event("cart_viewed"))
        #expect(event.sampleRate == 0.1)
        #expect(
            Set(event.personalData.map(\.description)) == [
                "email: hash", "customer.name: remove", "contacts[].email: hash", "pair[1]: hash", "phone: remove",
                "note: remove",
            ]
        )
        #expect(registry.personalDataKeys == ["email": .hash, "phone": .remove, "note": .remove])
        // A hashed value validates: the plan describes what the collector receives.
        let validator = EventValidator(registry: registry)
        let hashed = Fixtures.event(
            "cart_viewed",
            ["email": .string(String(repeating: "ab", count: 32))],
            feature: "shop"
        )
        #expect(validator.validate(hashed).isValid)
    }

    @Test("a rate of 1 is no sampling; an event without the keywords has none")
    func defaults() throws {
        let registry = try Self.load(
            Self.plan(Self.event(properties: #"{"type": "object"}"#, extra: #", "x-tally-sample-rate": 1"#))
        )
        let event = try #require(registry.event("cart_viewed"))
        #expect(event.sampleRate == nil && event.personalData.isEmpty)
        #expect(try Self.load(Self.plan(Self.event(properties: #"{"type":"object"}"#))).personalDataKeys.isEmpty)
    }

    static let misplaced = "x-tally-personal-data belongs on the schema of a property"

    @Test(
        "bad values and places are refused with the file and the JSON path",
        arguments: [
            (
                #", "x-tally-sample-rate": 0"#, #"{"type": "object"}"#, "$.events[0].x-tally-sample-rate",
                "greater than 0"
            ),
            (#", "x-tally-sample-rate": 1.5"#, #"{"type": "object"}"#, "$.events[0].x-tally-sample-rate", "at most 1"),
            (#", "x-tally-sample-rate": "0.1""#, #"{"type": "object"}"#, "$.events[0].x-tally-sample-rate", "a number"),
            (
                "", #"{"type": "object", "properties": {"e": {"type": "string", "x-tally-personal-data": "encrypt"}}}"#,
                "$.events[0].properties.properties.e.x-tally-personal-data", #""remove" or "hash""#
            ),
            (
                "",
                #"{"type": "object", "properties": {"e": {"type": "string", "x-tally-personal-data": "remove"}}, "required": ["e"]}"#,
                "$.events[0].properties.properties.e.x-tally-personal-data", "cannot be required"
            ),
            (
                "", #"{"type": "object", "properties": {"n": {"type": "integer", "x-tally-personal-data": "hash"}}}"#,
                "$.events[0].properties.properties.n.x-tally-personal-data", "64 lowercase hex digits"
            ),
            (
                "",
                #"{"type": "object", "properties": {"e": {"type": "string", "format": "email", "x-tally-personal-data": "hash"}}}"#,
                "$.events[0].properties.properties.e.x-tally-personal-data", "must accept them"
            ),
            (
                "",
                #"{"type": "object", "properties": {"e": {"anyOf": [{"type": "string", "x-tally-personal-data": "hash"}]}}}"#,
                "$.events[0].properties.properties.e.anyOf[0].x-tally-personal-data", misplaced
            ),
            (
                "", #"{"type": "object", "x-tally-personal-data": "remove"}"#,
                "$.events[0].properties.x-tally-personal-data", misplaced
            ),
            (
                "",
                #"{"type": "object", "properties": {"c": {"type": "object", "x-tally-personal-data": "remove", "properties": {"e": {"type": "string", "x-tally-personal-data": "hash"}}}}}"#,
                "$.events[0].properties.properties.c.properties.e.x-tally-personal-data", misplaced
            ),
            (
                "",
                #"{"type": "object", "properties": {"l": {"type": "array", "items": {"type": "string", "x-tally-personal-data": "remove"}}}}"#,
                "$.events[0].properties.properties.l.items.x-tally-personal-data", "mark the array property"
            ),
        ]
    )
    func refused(extra: String, properties: String, path: String, message: String) throws {
        let directory = try Fixtures.registry(["shop.json": Self.plan(Self.event(properties: properties, extra: extra))]
        )
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            _ = try SchemaRegistry.load(directory: directory)
            Issue.record("expected a problem at \(path)")
        } catch {
            let problem = error.problems.first { $0.path == path }
            #expect(problem?.code == .invalidKeyword, "\(error)")
            #expect(problem?.message.contains(message) == true, "\(error)")
            #expect(problem?.file == directory + "/shop.json")
        }
    }

    @Test("plain JSON Schema (not a tracking plan) still refuses the keyword")
    func plainSchemaRefuses() {
        let value = try! JSONParser.parse(Array(#"{"type": "string", "x-tally-personal-data": "hash"}"#.utf8))
        #expect(throws: SchemaError.self) { try SchemaCompiler().compile(value) }
    }
}
