import Foundation
import TallyCore

/// Converts a Snowplow Iglu registry (`<vendor>/<name>/jsonschema/<SchemaVer>` self-describing
/// JSON Schemas, draft-04) into tally tracking plans: one feature per vendor
/// (`com.acme.app` → `com_acme_app`), one event per schema, named by the schema's name exactly
/// as Iglu spells it (`screen_view`, `PerformanceTiming`: what Snowplow events carry as their
/// `event_name`).
///
/// Keys on the path and requires the `self` block to agree with it. The schema without its Iglu
/// envelope (`self`, `$schema`) is the event's properties schema, passed through as it is (arrays,
/// nested objects, `enum` without `type`, every keyword): the registry's compiler decides what it
/// supports. What it refuses (and broken files) is listed with the path and the reason, never
/// dropped silently.
///
/// Event names are unique across features in tally, so when two vendors define the same name the
/// first vendor in path order keeps it and the other is refused; `vendors` narrows the import to
/// the vendors you want.
package struct IgluImporter: Sendable {
    /// Only vendors equal to or under one of these (`com.snowplowanalytics.mobile`); empty for all.
    package var vendors: [String]

    /// Creates an importer, optionally limited to some vendors.
    package init(vendors: [String] = []) {
        self.vendors = vendors
    }

    /// Imports every file under `directory`.
    package func importRegistry(at directory: String) -> ImportReport {
        var report = ImportReport()
        var builder = PlanBuilder()
        let root = URL(fileURLWithPath: directory)
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else {
            report.refusals.append(.init(source: directory, reason: "cannot read the directory"))
            return report
        }
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = root.appendingPathComponent(relative).path
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                !relative.hasPrefix("."), !relative.contains("/."), relative.split(separator: "/").count >= 4
            {
                files.append(relative)
            }
        }
        for relative in files.sorted() {
            let path = root.appendingPathComponent(relative).path
            let parts = relative.split(separator: "/").map(String.init)
            let (vendor, name, format, versionText) = (
                parts[parts.count - 4], parts[parts.count - 3], parts[parts.count - 2], parts[parts.count - 1]
            )
            guard vendors.isEmpty || vendors.contains(where: { vendor == $0 || vendor.hasPrefix($0 + ".") }) else {
                continue
            }
            guard format == "jsonschema" else {
                report.refusals.append(.init(source: path, reason: "format \(format) is not JSON Schema"))
                continue
            }
            if let reason = importSchema(
                path: path,
                vendor: vendor,
                name: name,
                versionText: versionText,
                builder: &builder
            ) {
                report.refusals.append(.init(source: path, reason: reason))
            } else {
                report.importedCount += 1
            }
        }
        report.plans = builder.plans
        return report
    }

    private func importSchema(
        path: String,
        vendor: String,
        name: String,
        versionText: String,
        builder: inout PlanBuilder
    ) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return "cannot be read" }
        guard !data.isEmpty else { return "empty file" }
        let schema: JSONValue
        do {
            schema = try JSONParser.parse(Array(data))
        } catch {
            return "not JSON: \(error)"
        }
        guard let version = SchemaVer(versionText) else { return "\(versionText) is not a SchemaVer" }
        guard let selfBlock = schema["self"] else { return "$.self: not a self-describing schema" }
        guard selfBlock["vendor"]?.stringValue == vendor, selfBlock["name"]?.stringValue == name,
            selfBlock["format"]?.stringValue == "jsonschema", selfBlock["version"]?.stringValue == versionText
        else { return "$.self: does not match its path (\(vendor)/\(name)/jsonschema/\(versionText))" }
        let metaSchema = schema["$schema"]?.stringValue ?? ""
        guard metaSchema.hasPrefix("http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/")
        else { return "$.$schema: not the Iglu self-describing meta-schema" }
        // The schema without its Iglu envelope is the event's properties schema.
        guard case .object(let members) = schema else { return "$: not an object" }
        let body = Draft04.toDraft07(
            JSONValue.object(members.filter { $0.key != "self" && $0.key != "$schema" && $0.key != "$supersededBy" })
        )
        return builder.add(
            feature: NamingRules.snakeCase(vendor),
            featureDescription: "Imported from the Iglu vendor \(vendor).",
            name: name,
            version: version,
            description: schema["description"]?.stringValue ?? "iglu:\(vendor)/\(name)/jsonschema/\(versionText)",
            properties: body
        )
    }
}
