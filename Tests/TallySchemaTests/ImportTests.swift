import Foundation
import TallyCore
import TallySchema
import TallyTestSupport
import Testing

@Suite("Plan import")
struct ImportTests {
    static func writePlans(_ report: ImportReport) throws -> String {
        let directory = try Fixtures.registry([:])
        for (feature, plan) in report.plans {
            try JSONWriter.text(plan, pretty: true).write(
                toFile: "\(directory)/\(feature).json",
                atomically: true,
                encoding: .utf8
            )
        }
        return directory
    }

    static func fileCount(_ directory: URL) -> Int {
        let enumerator = FileManager.default.enumerator(atPath: directory.path)!
        var count = 0
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(
                atPath: directory.appendingPathComponent(relative).path,
                isDirectory: &isDirectory
            )
            if !isDirectory.boolValue, relative.split(separator: "/").count >= 4, !relative.contains("/.") {
                count += 1
            }
        }
        return count
    }

    @Test("Iglu Central: every schema is imported or refused with a reason; the result lints clean")
    func igluCentral() throws {
        let directory = try ConformanceData.require("snowplow-iglu/iglu-central")
        let report = IgluImporter().importRegistry(at: directory.path)
        let total = Self.fileCount(directory)
        #expect(total >= 660)
        #expect(report.importedCount + report.refusals.count == total)
        #expect(report.importedCount > 300)
        #expect(report.refusals.allSatisfy { !$0.reason.isEmpty })
        // Names are unique across features: Google's screen_view comes first in path order.
        #expect(report.refusals.contains { $0.reason.contains(#""screen_view" is already imported"#) })
        // Names as Iglu spells them: what the events carry.
        #expect(JSONWriter.text(try #require(report.plans["org_w3"])).contains(#""name":"PerformanceTiming""#))
        let mobile = IgluImporter(vendors: ["com.snowplowanalytics.mobile"]).importRegistry(at: directory.path)
        #expect(mobile.plans.keys.sorted() == ["com_snowplowanalytics_mobile"])
        #expect(
            JSONWriter.text(try #require(mobile.plans["com_snowplowanalytics_mobile"])).contains("\"list_item_view\"")
        )
        // minProperties is supported: screen_view 1-0-0 is imported with it, not refused or stripped.
        #expect(!mobile.refusals.contains { $0.source.hasSuffix("mobile/screen_view/jsonschema/1-0-0") })
        #expect(
            JSONWriter.text(try #require(mobile.plans["com_snowplowanalytics_mobile"])).contains("\"minProperties\"")
        )
        let written = try Self.writePlans(report)
        defer { try? FileManager.default.removeItem(atPath: written) }
        let registry = try SchemaRegistry.load(directory: written)
        #expect(registry.eventNames.count > 100)
        print(
            "Iglu Central: \(report.importedCount) imported, \(report.refusals.count) refused, \(report.plans.count) plans"
        )
    }

    @Test("the broken Iglu client test schemas are each refused with their path named")
    func igluBrokenSchemas() throws {
        let directory = try ConformanceData.require("snowplow-iglu/iglu-scala-client-test-schemas")
        let report = IgluImporter().importRegistry(at: directory.path)
        func refusal(_ suffix: String) -> ImportReport.Refusal? {
            report.refusals.first { $0.source.hasSuffix(suffix) }
        }
        #expect(refusal("corrupted_schema/jsonschema/1-0-0")?.reason.hasPrefix("not JSON") == true)
        #expect(refusal("invalid_schema/jsonschema/1-0-0")?.reason.hasPrefix("not JSON") == true)
        #expect(refusal("invalid-protocol/jsonschema/1-0-0") != nil)
        #expect(refusal("test-embedded-list/jsonschema/1-2-11")?.reason == "empty file")
        #expect(report.importedCount + report.refusals.count == Self.fileCount(directory))
    }

    @Test("Iglu: names as sent, arrays, nested objects and enum without type passed through as written")
    func igluPassThrough() throws {
        let nested = #"""
            {"type": "object", "properties": {
              "step": {"type": "integer", "minimum": 1},
              "payment": {"type": "object", "properties": {"method": {"enum": ["card", "paypal", null]}},
                          "required": ["method"], "additionalProperties": false}},
             "required": ["step"], "additionalProperties": false}
            """#
        let array = #"{"type": "object", "properties": {"skus": {"type": "array", "items": {"type": "string"}}}}"#
        let root = NSTemporaryDirectory() + "tally-iglu-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        for (name, body) in [("CheckoutStep", nested), ("cart_items", array)] {
            let directory = "\(root)/com.acme.shop/\(name)/jsonschema"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let selfDescribing = body.replacingOccurrences(
                of: #"{"type": "object","#,
                with: #"""
                    {"$schema": "http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#",
                     "self": {"vendor": "com.acme.shop", "name": "\#(name)", "format": "jsonschema", "version": "1-0-0"},
                     "type": "object",
                    """#,
                options: .anchored
            )
            try selfDescribing.write(toFile: "\(directory)/1-0-0", atomically: true, encoding: .utf8)
        }
        let report = IgluImporter().importRegistry(at: root)
        let plan = try #require(report.plans["com_acme_shop"])
        #expect(plan["naming"] == .string("as_sent"))
        #expect(plan["normalize_strings"] == .bool(false))
        guard case .array(let events)? = plan["events"] else {
            Issue.record("the plan has no events")
            return
        }
        let checkout = try #require(events.first { $0["name"] == .string("CheckoutStep") })
        #expect(checkout["properties"] == (try JSONParser.parse(Array(nested.utf8))))
        let arrays = events.first { $0["name"] == .string("cart_items") }
        if arrays == nil {
            // Until the schema-keywords branch lands, the compiler refuses items, and says where.
            #expect(report.refusals.contains { $0.reason.contains(#"$.properties.skus.items: keyword "items""#) })
        } else {
            #expect(arrays?["properties"] == (try JSONParser.parse(Array(array.utf8))))
        }
        let written = try Self.writePlans(report)
        defer { try? FileManager.default.removeItem(atPath: written) }
        let validator = EventValidator(registry: try SchemaRegistry.load(directory: written))
        let payment = PropertyValue(try JSONParser.parse(Array(#"{"method": "card"}"#.utf8)))
        #expect(validator.validate(Fixtures.event("CheckoutStep", ["step": 2, "payment": payment])).isValid)
        #expect(!validator.validate(Fixtures.event("CheckoutStep", ["step": "2"])).isValid)
        #expect(!validator.validate(Fixtures.event("checkout_step", ["step": 2])).isValid)
    }
}
