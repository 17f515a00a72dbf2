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
        guard let directory = ConformanceData.directory("snowplow-iglu/iglu-central") else { return }
        let report = IgluImporter().importRegistry(at: directory.path)
        let total = Self.fileCount(directory)
        #expect(total >= 660)
        #expect(report.importedCount + report.refusals.count == total)
        #expect(report.importedCount > 200)
        #expect(report.refusals.allSatisfy { !$0.reason.isEmpty })
        // Names are unique across features: Google's screen_view comes first in path order.
        #expect(report.refusals.contains { $0.reason.contains("screen_view is already imported") })
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
        guard let directory = ConformanceData.directory("snowplow-iglu/iglu-scala-client-test-schemas") else { return }
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

    @Test("a Segment Protocols plan: events renamed to snake_case, properties kept, the rest reported")
    func segmentPlan() throws {
        let plan = """
            {"display_name": "Kicks App", "rules": {
              "global": {"type": "object"},
              "events": [
                {"name": "Order Completed", "description": "An order was placed.", "version": 2, "rules": {
                  "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                  "properties": {
                    "properties": {"type": "object", "properties": {
                      "order_id": {"type": "string"}, "total": {"type": "number", "minimum": 0},
                      "coupon": {"type": ["string", "null"]}},
                      "required": ["order_id", "total"]},
                    "context": {"type": "object"}}}},
                {"name": "Product Viewed", "version": 1, "rules": {"type": "object", "properties": {
                    "properties": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}}}}},
                {"name": "Signed Up", "version": 1, "rules": {"type": "object", "properties": {"properties": {"type": "object"}}}}
              ]}}
            """
        let directory = try Fixtures.registry(["plan.json": plan])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let report = SegmentImporter().importPlan(at: directory + "/plan.json", feature: "shop")
        #expect(report.importedCount == 2)
        #expect(report.renamed.contains("Order Completed → order_completed"))
        #expect(report.refusals.contains { $0.source.hasSuffix("$.rules.events[1]") && $0.reason.contains("tags") })
        #expect(report.refusals.contains { $0.source.hasSuffix("$.rules.global") })
        #expect(report.refusals.contains { $0.source.hasSuffix("rules.properties.context") })
        let written = try Self.writePlans(report)
        defer { try? FileManager.default.removeItem(atPath: written) }
        let registry = try SchemaRegistry.load(directory: written)
        let order = try #require(registry.event("order_completed"))
        #expect(order.version == SchemaVer("2-0-0"))
        #expect(order.feature == "shop")
        #expect(order.properties.required == ["order_id", "total"])
        #expect(registry.event("signed_up") != nil)
    }
}
