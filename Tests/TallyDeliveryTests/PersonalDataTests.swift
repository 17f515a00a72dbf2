import TallyCore
import TallySchema
import Testing

@testable import TallyDelivery

@Suite("Personal data removed or hashed on the device")
struct PersonalDataTests {
    static let plan = #"""
        {"name": "Order Completed", "version": "1-0-0", "description": "d", "properties": {"type": "object",
          "properties": {
            "email": {"type": "string", "x-tally-personal-data": "hash"},
            "phone": {"type": "string", "x-tally-personal-data": "remove"},
            "total": {"type": "number"},
            "customer": {"type": "object", "properties": {
               "name": {"type": "string", "x-tally-personal-data": "remove"},
               "id": {"type": ["string", "integer"], "x-tally-personal-data": "hash"}}},
            "contacts": {"type": "array", "items": {"type": "object", "properties": {
               "email": {"type": "string", "x-tally-personal-data": "hash"}}}}}}},
        {"name": "Cart Viewed", "version": "1-0-0", "description": "d", "properties": {"type": "object"}}
        """#

    static func hex(_ text: String) -> String { SHA256.hex(SHA256.digest(Array(text.utf8))) }

    @Test("top-level and nested properties, array elements; other properties and events untouched")
    func scrubs() throws {
        let scrubber = PersonalDataScrubber(registry: try PrivacyFixtures.registry(Self.plan), salt: nil)
        let customer = try JSONParser.parse(#"{"name":"Ada","id":42,"tier":"gold"}"#)
        let contacts = try JSONParser.parse(#"[{"email":"a@example.com"},{"email":"b@example.com","x":1},7]"#)
        var event = PrivacyFixtures.event(
            "Order Completed",
            [
                "email": "ada@example.com", "phone": "+44 20 7946 0000", "total": 19.99,
                "customer": PropertyValue(customer), "contacts": PropertyValue(contacts),
            ]
        )
        scrubber.scrub(&event)
        let properties = event.properties
        // What `printf %s ada@example.com | sha256sum` prints: analysts can hash a known address to join.
        #expect(properties["email"] == .string("b5fc85e55755f9e0d030a10ab4429b6b2944855f9a0d60077fe832becbc41d72"))
        #expect(!properties.contains("phone"))
        #expect(properties["total"] == .number(19.99))
        #expect(
            properties["customer"]?.jsonValue
                == (try JSONParser.parse(#"{"id":"\#(Self.hex("42"))","tier":"gold"}"#))
        )
        #expect(
            properties["contacts"]?.jsonValue
                == (try JSONParser.parse(
                    #"[{"email":"\#(Self.hex("a@example.com"))"},{"email":"\#(Self.hex("b@example.com"))","x":1},7]"#
                ))
        )
        // The NDJSON line the outbox writes holds none of the values.
        let line = String(decoding: event.ndjsonLine, as: UTF8.self)
        for secret in ["ada@example.com", "+44 20", "Ada", "a@example.com", "b@example.com"] {
            #expect(!line.contains(secret))
        }
        // A version the plan does not know gets the latest version's rules.
        var unknownVersion = PrivacyFixtures.event("Order Completed", ["email": "ada@example.com"])
        unknownVersion.schemaVersion = "9-9-9"
        scrubber.scrub(&unknownVersion)
        #expect(unknownVersion.properties["email"] == .string(Self.hex("ada@example.com")))
        var other = PrivacyFixtures.event("Cart Viewed", ["email": "ada@example.com"])
        scrubber.scrub(&other)
        #expect(other.properties["email"] == .string("ada@example.com"))
    }

    @Test("with a salt, the hash is HMAC-SHA-256 under it")
    func salted() throws {
        let scrubber = PersonalDataScrubber(registry: try PrivacyFixtures.registry(Self.plan), salt: "pepper")
        var event = PrivacyFixtures.event("Order Completed", ["email": "ada@example.com"])
        scrubber.scrub(&event)
        let expected = SHA256.hex(SHA256.hmac(key: Array("pepper".utf8), message: Array("ada@example.com".utf8)))
        #expect(event.properties["email"] == .string(expected))
        #expect(expected != Self.hex("ada@example.com"))
    }

    @Test("identify and group traits: keys marked at the top level of any event; alias untouched")
    func traits() throws {
        let scrubber = PersonalDataScrubber(registry: try PrivacyFixtures.registry(Self.plan), salt: nil)
        var identify = PrivacyFixtures.event(
            "identify",
            ["email": "ada@example.com", "phone": "123", "plan": "pro"],
            userID: "u1",
            kind: .identify
        )
        scrubber.scrub(&identify)
        #expect(identify.properties["email"] == .string(Self.hex("ada@example.com")))
        #expect(!identify.properties.contains("phone") && identify.properties["plan"] == .string("pro"))
        var alias = PrivacyFixtures.event("alias", ["email": "ada@example.com"], kind: .alias)
        scrubber.scrub(&alias)
        #expect(alias.properties["email"] == .string("ada@example.com"))
    }

    @Test("a plan without marks makes the scrubber inactive")
    func inactive() throws {
        let registry = try PrivacyFixtures.registry(
            #"{"name": "Cart Viewed", "version": "1-0-0", "description": "d", "properties": {"type": "object"}}"#
        )
        #expect(!PersonalDataScrubber(registry: registry, salt: nil).isActive)
        #expect(!Sampler(registry: registry).isActive)
    }
}
