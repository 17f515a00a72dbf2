import Foundation
import TallyCore

/// Converts a Segment Protocols tracking plan (the JSON of Segment's Tracking Plans API:
/// `{"display_name": …, "rules": {"events": [{"name", "description", "version", "rules"}]}}`)
/// into one tally tracking plan.
///
/// Event names are kept exactly as Segment has them (`Order Completed`: what its track calls
/// carry); each event's `rules.properties.properties` schema becomes its properties; `context`, `traits`,
/// `identify` and `group` rules have no place in tally's plan and are reported.
public struct SegmentImporter: Sendable {
    /// Creates an importer.
    public init() {}

    /// Imports the plan in `file`; `feature` overrides the feature name taken from the plan's name.
    public func importPlan(at file: String, feature: String? = nil) -> ImportReport {
        var report = ImportReport()
        guard let data = FileManager.default.contents(atPath: file) else {
            report.refusals.append(.init(source: file, reason: "cannot be read"))
            return report
        }
        let plan: JSONValue
        do {
            plan = try JSONParser.parse(Array(data))
        } catch {
            report.refusals.append(.init(source: file, reason: "not JSON: \(error)"))
            return report
        }
        let title = plan["display_name"]?.stringValue ?? plan["name"]?.stringValue ?? "segment"
        let featureName = feature ?? NamingRules.snakeCase(title)
        guard case .array(let events)? = plan["rules"]?["events"] else {
            report.refusals.append(.init(source: "\(file) $.rules.events", reason: "no events in the plan"))
            return report
        }
        for key in ["global", "identify", "group"] where plan["rules"]?[key] != nil {
            report.refusals.append(
                .init(source: "\(file) $.rules.\(key)", reason: "\(key) rules have no equivalent in a tally plan")
            )
        }
        var builder = PlanBuilder()
        for (index, event) in events.enumerated() {
            let source = "\(file) $.rules.events[\(index)]"
            guard let name = event["name"]?.stringValue else {
                report.refusals.append(.init(source: source, reason: "event without a name"))
                continue
            }
            let versionNumber =
                event["version"].flatMap { value -> Int? in
                    if case .number(let number) = value { return number.int64Value.map(Int.init) }
                    return nil
                } ?? 1
            guard let version = SchemaVer("\(max(versionNumber, 1))-0-0") else { continue }
            let rules = event["rules"]
            for key in ["context", "traits"] where rules?["properties"]?[key] != nil {
                report.refusals.append(
                    .init(
                        source: "\(source).rules.properties.\(key)",
                        reason: "\(key) rules are not part of a tally event"
                    )
                )
            }
            var properties =
                rules?["properties"]?["properties"] ?? .object([JSONMember(key: "type", value: .string("object"))])
            if case .object(let members) = properties {
                // Segment wraps properties in {"type": "object", …}; keep only what describes them.
                properties = .object(members.filter { $0.key != "$schema" && $0.key != "id" })
            }
            if let reason = builder.add(
                feature: featureName,
                featureDescription: "Imported from the Segment tracking plan \(title).",
                name: name,
                version: version,
                description: event["description"]?.stringValue ?? "",
                properties: properties,
                propertiesPath: "$.rules.events[\(index)].rules.properties.properties"
            ) {
                report.refusals.append(.init(source: source, reason: reason))
            } else {
                report.importedCount += 1
            }
        }
        report.plans = builder.plans
        return report
    }
}
