import Foundation
import TallyCore
import TallySchema
import Testing

@Suite("Schema registry")
struct RegistryTests {
    @Test("the Examples plan loads; versions sort numerically; latest is the default")
    func examplesPlan() throws {
        let registry = try Fixtures.loadExamples()
        #expect(registry.plans.keys.sorted() == ["episode", "player", "search"])
        #expect(registry.versions(of: "episode_detail_play_tapped").map(\.version.description) == ["1-0-0", "1-0-1"])
        #expect(registry.event("episode_detail_play_tapped")?.version == SchemaVer("1-0-1"))
        #expect(registry.event("episode_list_viewed")?.screen == "episode_list")
        #expect(SchemaVer("1-2-11")! > SchemaVer("1-2-0")!)
        #expect(SchemaVer("01-0-0") == nil && SchemaVer("0-1-0") == nil && SchemaVer("1-0") == nil)
    }

    static let header = #""feature": "shop", "description": "A shop.", "screens": ["cart"]"#

    static func plan(events: String) -> String {
        "{ \(header), \"events\": [\(events)] }"
    }

    static func event(_ name: String, version: String = "1-0-0", properties: String = #"{"type":"object"}"#) -> String {
        #"{"name": "\#(name)", "version": "\#(version)", "description": "d", "properties": \#(properties)}"#
    }

    @Test(
        "broken plans are refused with the file, the JSON path and the reason",
        arguments: [
            (
                plan(
                    events: event(
                        "cart_viewed",
                        properties: #"{"type":"object","properties":{"x":{"type":"string","unevaluatedItems":{}}}}"#
                    )
                ),
                SchemaError.Code.unsupportedKeyword, "$.events[0].properties.properties.x.unevaluatedItems"
            ),
            (plan(events: event("Cart Viewed")), .invalidName, "$.events[0].name"),
            (plan(events: event("checkout_viewed")), .unknownScreen, "$.events[0].name"),
            (plan(events: event("cart_viewed", version: "1.0.0")), .invalidVersion, "$.events[0].version"),
            (plan(events: event("cart_viewed") + "," + event("cart_viewed")), .duplicateEvent, "$.events[1]"),
            (
                plan(events: event("cart_viewed", properties: #"{"type":"array","items":{}}"#)),
                .invalidKeyword, "$.events[0].properties.type"
            ),
            (
                plan(
                    events: event(
                        "cart_viewed",
                        properties:
                            #"{"type":"object","properties":{"item_id":{"type":"string"},"itemId":{"type":"string"}}}"#
                    )
                ),
                .nameCollision, "$.events[0].properties.properties.itemId"
            ),
            (
                plan(
                    events: event(
                        "cart_viewed",
                        properties: #"{"type":"object","properties":{"s":{"type":"string","pattern":"(["}}}"#
                    )
                ),
                .invalidPattern, "$.events[0].properties.properties.s.pattern"
            ),
            (
                plan(
                    events: event(
                        "cart_viewed",
                        properties: #"{"type":"object","properties":{"s":{"type":"string","format":"idn-hostname"}}}"#
                    )
                ),
                .unsupportedFormat, "$.events[0].properties.properties.s.format"
            ),
            ("{ \(header), \"events\": [], \"owner\": \"me\" }", .unsupportedKeyword, "$.owner"),
            ("{ \"feature\": \"shop\" ", .malformedFile, "$"),
        ]
    )
    func brokenPlans(text: String, code: SchemaError.Code, path: String) throws {
        let directory = try Fixtures.registry(["shop.json": text])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            _ = try SchemaRegistry.load(directory: directory)
            Issue.record("expected \(code) at \(path)")
        } catch {
            #expect(error.problems.contains { $0.code == code && $0.path == path }, "\(error)")
            #expect(error.problems.allSatisfy { $0.file == directory + "/shop.json" })
        }
    }

    @Test("names that collide across plans are refused, each with its file")
    func collisionsAcrossPlans() throws {
        let shop =
            #"{ "feature": "shop", "description": "d", "screens": ["cart"], "events": [\#(Self.event("cart_item_added"))] }"#
        // cartitem_added and cart_item_added differ only by an underscore.
        let other =
            #"{ "feature": "promo", "description": "d", "screens": ["cartitem"], "events": [\#(Self.event("cartitem_added"))] }"#
        let directory = try Fixtures.registry(["shop.json": shop, "promo.json": other])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: SchemaRegistry.LoadError.self) { try SchemaRegistry.load(directory: directory) }
        do {
            _ = try SchemaRegistry.load(directory: directory)
        } catch {
            #expect(error.problems.map(\.code) == [.nameCollision])
        }
    }

    @Test("a required property whose schema has a problem is reported once, at its own path")
    func requiredPropertyWithABadPattern() throws {
        let properties = #"{"type":"object","properties":{"s":{"type":"string","pattern":"(["}},"required":["s"]}"#
        let directory = try Fixtures.registry([
            "shop.json": Self.plan(events: Self.event("cart_viewed", properties: properties))
        ])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            _ = try SchemaRegistry.load(directory: directory)
            Issue.record("expected the bad pattern")
        } catch {
            #expect(error.problems.map(\.code) == [.invalidPattern], "\(error)")
        }
    }
}
