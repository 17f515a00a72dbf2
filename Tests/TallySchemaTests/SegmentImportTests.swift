import Foundation
import TallyCore
import TallySchema
import TallyTestSupport
import Testing

/// `SegmentImporter` on each export shape: names as sent, property schemas kept as written, every
/// event imported or refused, and plans that load and validate.
@Suite("Segment plan import")
struct SegmentImportTests {
    typealias Shapes = SegmentImportFixtures

    /// Whether the registry's compiler takes `items` and `minItems` yet (the schema-keywords branch).
    static let compilerSupportsArrays =
        SchemaCompiler().compileReportingAll(
            try! JSONParser.parse(Array(#"{"type": "array", "items": {}, "minItems": 1}"#.utf8))
        )
        .problems.isEmpty

    static func importing(_ text: String, feature: String? = nil) throws -> (report: ImportReport, file: String) {
        let directory = try Fixtures.registry(["plan.json": text])
        return (SegmentImporter().importPlan(at: directory + "/plan.json", feature: feature), directory + "/plan.json")
    }

    static func json(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

    /// The plan's events as (name, version) → event document.
    static func events(_ plan: JSONValue?) -> [String: JSONValue] {
        guard case .array(let events)? = plan?["events"] else { return [:] }
        var result: [String: JSONValue] = [:]
        for event in events {
            result["\(event["name"]?.stringValue ?? "") \(event["version"]?.stringValue ?? "")"] = event
        }
        return result
    }

    /// Each of `rules` (source path → "name version") is in the plan or refused at exactly that path.
    static func expectEveryEventAccounted(_ report: ImportReport, plan: JSONValue?, rules: [String: String]) {
        let imported = events(plan)
        for (path, event) in rules {
            let refused = report.refusals.contains { $0.source.hasSuffix(" " + path) }
            #expect(
                (imported[event] != nil) != refused,
                "\(event) at \(path): imported \(imported[event] != nil), refused \(refused)"
            )
        }
        #expect(imported.count == report.importedCount)
    }

    static func property(_ value: String) throws -> PropertyValue { PropertyValue(try json(value)) }

    @Test("Public API rules: TRACK rules become events named as sent; other rules refused when they constrain")
    func publicAPI() throws {
        let (report, file) = try Self.importing(Shapes.publicAPI, feature: "shop")
        defer { try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent) }
        let plan = try #require(report.plans["shop"])
        #expect(plan["naming"] == .string("as_sent"))
        #expect(plan["normalize_strings"] == .bool(false))
        #expect(plan["screens"] == nil)
        let events = Self.events(plan)
        #expect(events["Order Completed 1-0-0"]?["properties"] == (try Self.json(Shapes.orderCompletedV1)))
        #expect(events["Order Completed 1-0-0"]?["description"] == .string("An order was placed."))
        #expect(events["Product Viewed 1-0-0"]?["properties"] == (try Self.json(Shapes.productViewed)))
        #expect(events["Signed Up 1-0-0"]?["properties"] == (try Self.json(#"{"type": "object"}"#)))
        Self.expectEveryEventAccounted(
            report,
            plan: plan,
            rules: [
                "$.data.rules[4]": "Order Completed 1-0-0", "$.data.rules[5]": "Order Completed 2-0-0",
                "$.data.rules[6]": "Product Viewed 1-0-0", "$.data.rules[7]": "Signed Up 1-0-0",
                "$.data.rules[8]": "Checkout Started 1-0-0",
            ]
        )
        func refusal(_ path: String) -> String? { report.refusals.first { $0.source == "\(file) \(path)" }?.reason }
        #expect(refusal("$.data.rules[0]")?.contains("rules for every message") == true)
        #expect(refusal("$.data.rules[1]") == nil, "an IDENTIFY rule that constrains nothing loses nothing")
        #expect(refusal("$.data.rules[2]")?.contains("identity records") == true)
        #expect(refusal("$.data.rules[3]")?.hasPrefix(#""Home": page rules"#) == true)
        #expect(refusal("$.data.rules[6].jsonSchema.properties.context")?.contains("context rules") == true)
        #expect(refusal("$.data.rules[8]")?.contains("version must be a whole number") == true)
        if !Self.compilerSupportsArrays {
            // Passed through as written: the compiler names the source path of what it refuses.
            #expect(
                refusal("$.data.rules[5]")?.contains(
                    #"$.data.rules[5].jsonSchema.properties.properties.properties.products.items: keyword "items""#
                ) == true
            )
        }
        #expect(!report.importedNothing)
    }

    @Test("Config API plan: draft-04 bounds in draft-07 spelling, Segment's misplaced required, global rules")
    func configAPI() throws {
        let (report, file) = try Self.importing(Shapes.configAPI)
        defer { try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent) }
        #expect(report.plans.keys.sorted() == ["kicks_app"])
        let plan = report.plans["kicks_app"]
        let events = Self.events(plan)
        let total = events["Order Completed 1-0-0"]?["properties"]?["properties"]?["total"]
        #expect(total == (try Self.json(#"{"type": ["number"], "exclusiveMinimum": 0}"#)))
        #expect(events["Product Viewed 1-0-0"]?["properties"] == (try Self.json(Shapes.productViewed)))
        #expect(events["Product Viewed 1-0-0"]?["description"] == .string("Imported."))
        Self.expectEveryEventAccounted(
            report,
            plan: plan,
            rules: [
                "$.rules.events[0]": "Order Completed 1-0-0", "$.rules.events[1]": "Order Completed 2-0-0",
                "$.rules.events[2]": "Product Viewed 1-0-0", "$.rules.events[3]": " ",
            ]
        )
        let sources = Set(report.refusals.map(\.source))
        #expect(sources.contains("\(file) $.rules.global"))
        #expect(sources.contains("\(file) $.rules.identify"))
        #expect(!sources.contains("\(file) $.rules.group"), "empty group rules lose nothing")
        #expect(!sources.contains { $0.contains("required") }, "requiring properties constrains nothing")
    }

    @Test("2018 local plan: whole-message rules read, a properties-only schema refused rather than guessed at")
    func localPlan() throws {
        let (report, file) = try Self.importing(Shapes.localPlan)
        defer { try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent) }
        let plan = report.plans["slothgram"]
        let events = Self.events(plan)
        #expect(events["Feed Viewed 1-0-0"]?["description"] == .string("A feed was viewed."))
        #expect(events["Feed Viewed 1-0-0"]?["properties"]?["required"] == .array([.string("profile_id")]))
        #expect(events["Product Viewed 1-0-0"]?["properties"] == (try Self.json(Shapes.productViewed)))
        Self.expectEveryEventAccounted(
            report,
            plan: plan,
            rules: [
                "$.events[0]": "Feed Viewed 1-0-0", "$.events[1]": "Product Viewed 1-0-0",
                "$.events[2]": "Order Completed 1-0-0", "$.events[3]": "Photo Liked 1-0-0",
            ]
        )
        let photo = report.refusals.first { $0.source == "\(file) $.events[3]" }
        #expect(photo?.reason.contains("does not describe a Segment message") == true)
    }

    @Test("imported plans load into a registry and validate events as sent, with plain JSON Schema types")
    func registryValidation() throws {
        for (shape, feature) in [(Shapes.publicAPI, "shop"), (Shapes.configAPI, "kicks_app")] {
            let (report, file) = try Self.importing(shape, feature: feature)
            let written = try ImportTests.writePlans(report)
            defer {
                try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent)
                try? FileManager.default.removeItem(atPath: written)
            }
            let validator = EventValidator(registry: try SchemaRegistry.load(directory: written))
            let order = Fixtures.event("Order Completed", ["order_id": "o-1", "total": 12.5], version: "1-0-0")
            #expect(validator.validate(order).isValid, "\(feature)")
            #expect(validator.validate(order).event.feature == feature)
            let typedAsText = Fixtures.event("Order Completed", ["order_id": "o-1", "total": "12.5"], version: "1-0-0")
            #expect(validator.validate(typedAsText).codes == [ReasonCode.typeMismatch], "normalize_strings is false")
            #expect(!validator.validate(Fixtures.event("order_completed", ["order_id": "o-1", "total": 1])).isValid)
            let viewed = Fixtures.event(
                "Product Viewed",
                ["product_id": "p-1", "variant": try Self.property(#"{"color": "red", "size": "M"}"#)]
            )
            #expect(validator.validate(viewed).isValid, "\(validator.validate(viewed).summary)")
            let badSize = Fixtures.event(
                "Product Viewed",
                ["product_id": "p-1", "variant": try Self.property(#"{"color": "red", "size": "XL"}"#)]
            )
            #expect(!validator.validate(badSize).isValid)
        }
    }

    @Test(
        "an Order Completed event with a products array validates against the imported plan",
        .enabled(
            if: compilerSupportsArrays,
            "SchemaCompiler refuses items/minItems until the schema-keywords branch lands"
        )
    )
    func arrays() throws {
        for shape in [Shapes.publicAPI, Shapes.configAPI, Shapes.localPlan] {
            let (report, file) = try Self.importing(shape, feature: "shop")
            let written = try ImportTests.writePlans(report)
            defer {
                try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent)
                try? FileManager.default.removeItem(atPath: written)
            }
            let version = shape == Shapes.localPlan ? "1-0-0" : "2-0-0"
            let imported = Self.events(report.plans["shop"])["Order Completed \(version)"]
            #expect(imported?["properties"] == (try Self.json(Shapes.orderCompletedV2)))
            let validator = EventValidator(registry: try SchemaRegistry.load(directory: written))
            let products = try Self.property(#"[{"product_id": "p-1", "price": 10, "quantity": 2}]"#)
            let order = Fixtures.event(
                "Order Completed",
                ["order_id": "o-1", "total": 20, "products": products],
                version: version
            )
            #expect(validator.validate(order).isValid, "\(validator.validate(order).summary)")
            let noID = try Self.property(#"[{"price": 10}]"#)
            let bad = Fixtures.event(
                "Order Completed",
                ["order_id": "o-1", "total": 20, "products": noID],
                version: version
            )
            #expect(!validator.validate(bad).isValid)
        }
    }

    @Test("nothing imported and something refused is a failure; a file of another kind is refused whole")
    func importedNothing() throws {
        let pagesOnly = #"{"rules": [{"type": "PAGE", "key": "Home", "version": 1, "jsonSchema": {}}]}"#
        let (pages, pagesFile) = try Self.importing(pagesOnly, feature: "shop")
        defer { try? FileManager.default.removeItem(atPath: (pagesFile as NSString).deletingLastPathComponent) }
        #expect(pages.importedCount == 0 && pages.refusals.count == 1)
        #expect(pages.importedNothing)
        let (other, otherFile) = try Self.importing(#"{"tracking_plans": []}"#)
        defer { try? FileManager.default.removeItem(atPath: (otherFile as NSString).deletingLastPathComponent) }
        #expect(other.refusals.first?.reason.hasPrefix("not a Segment tracking plan") == true)
        #expect(other.importedNothing)
        let (empty, emptyFile) = try Self.importing(#"{"rules": []}"#)
        defer { try? FileManager.default.removeItem(atPath: (emptyFile as NSString).deletingLastPathComponent) }
        #expect(!empty.importedNothing, "an empty plan refuses nothing")
    }

    @Test("$refs into the message's definitions are carried along; other refs into the message are refused")
    func references() throws {
        let plan = #"""
            {"rules": [
              {"type": "TRACK", "key": "Cart Viewed", "version": 1, "jsonSchema": {"type": "object",
                "definitions": {"product": {"type": "object", "properties": {"sku": {"type": "string"}}}},
                "properties": {"context": {}, "traits": {}, "properties": {"type": "object",
                  "properties": {"featured": {"$ref": "#/definitions/product"}}}}}},
              {"type": "TRACK", "key": "Cart Shared", "version": 1, "jsonSchema": {"type": "object",
                "properties": {"context": {"type": "object"}, "traits": {}, "properties": {"type": "object",
                  "properties": {"device": {"$ref": "#/properties/context"}}}}}}
            ]}
            """#
        let (report, file) = try Self.importing(plan, feature: "shop")
        defer { try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent) }
        func refusal(_ path: String) -> String? { report.refusals.first { $0.source == "\(file) \(path)" }?.reason }
        if let viewed = Self.events(report.plans["shop"])["Cart Viewed 1-0-0"] {
            #expect(viewed["properties"]?["definitions"]?["product"] != nil)
        } else {
            // Refused by today's compiler, which names the carried definitions where they now are.
            #expect(refusal("$.rules[0]")?.contains("jsonSchema.properties.properties.definitions") == true)
        }
        #expect(refusal("$.rules[1]")?.contains(##""#/properties/context" points outside"##) == true)
    }

    @Test("a plan name that gives no feature name: every event refused, saying to pass --feature")
    func featureName() throws {
        let plan = #"{"name": "???", "events": [{"name": "A", "rules": {"properties": {"properties": {}}}}]}"#
        let (unnamed, file) = try Self.importing(plan)
        defer { try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent) }
        #expect(unnamed.refusals.map(\.reason) == [#"feature "" is not lowercase snake_case: pass --feature NAME"#])
        let (named, namedFile) = try Self.importing(plan, feature: "shop")
        defer { try? FileManager.default.removeItem(atPath: (namedFile as NSString).deletingLastPathComponent) }
        #expect(named.importedCount == 1 && named.refusals.isEmpty)
    }
}
