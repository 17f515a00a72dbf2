import Foundation
import TallyCore

/// Converts a Segment Protocols tracking plan into one tally tracking plan, from any of its
/// export shapes: the Public API's rules (`rules[]` with `jsonSchema`, ``SegmentPublicAPIPlan``),
/// the Config API's plan (`rules.events[]`, ``SegmentConfigAPIPlan``) and the 2018 local plan
/// file (`{name, events: [{name, rules}]}`, ``SegmentLocalPlan``).
///
/// Each track event version becomes an event named exactly as Segment has it (`Order Completed`:
/// the plan uses `"naming": "as_sent"`), version N becoming `N-0-0`, its properties schema being
/// the message schema's `properties.properties` as it is (nested objects, arrays and every keyword
/// kept: the registry's compiler decides). Everything else is refused with its JSON path and the
/// reason: events the registry cannot load, constraints on the rest of the message (`context`,
/// `traits`), and identify, group, page, screen and common rules.
package struct SegmentImporter: Sendable {
    /// Creates an importer.
    package init() {}

    /// Imports the plan in `file`; `feature` overrides the feature name taken from the plan's name.
    package func importPlan(at file: String, feature: String? = nil) -> ImportReport {
        var report = ImportReport()
        guard let data = FileManager.default.contents(atPath: file) else {
            report.refusals.append(.init(source: file, reason: "cannot be read"))
            return report
        }
        let document: JSONValue
        do {
            document = try JSONParser.parse(Array(data))
        } catch {
            report.refusals.append(.init(source: file, reason: "not JSON: \(error)"))
            return report
        }
        // A Config API plan's `rules` is an object, the Public API's a list: the shapes never overlap.
        guard
            let contents = SegmentPublicAPIPlan(document, file: file)?.contents
                ?? SegmentConfigAPIPlan(document, file: file)?.contents
                ?? SegmentLocalPlan(document, file: file)?.contents
        else {
            report.refusals.append(
                .init(
                    source: "\(file) $",
                    reason: "not a Segment tracking plan: expected rules[] (Public API), rules.events[] "
                        + "(Config API) or events[] (local plan file)"
                )
            )
            return report
        }
        // The Public API's rules carry no plan name: then the feature is `segment` unless named.
        let featureName = feature ?? contents.title.map(NamingRules.snakeCase) ?? "segment"
        let featureDescription =
            contents.title.map { "Imported from the Segment tracking plan \($0)." }
            ?? "Imported from a Segment tracking plan."
        // A plan name that gives no feature name would refuse every event: each refusal says what to do.
        let featureProblem =
            NamingRules.isSnakeCase(featureName)
            ? nil : "feature \(featureName.debugDescription) is not lowercase snake_case: pass --feature NAME"
        var builder = PlanBuilder()
        for entry in contents.entries {
            guard case .event(let event) = entry else {
                if case .refusal(let refusal) = entry { report.refusals.append(refusal) }
                continue
            }
            if let featureProblem {
                report.refusals.append(.init(source: event.source, reason: featureProblem))
                continue
            }
            let message: SegmentMessageSchema
            do {
                message = try SegmentMessageSchema(event.messageSchema)
            } catch {
                report.refusals.append(.init(source: event.source, reason: "\(event.schemaPath): \(error.reason)"))
                continue
            }
            if let reason = builder.add(
                feature: featureName,
                featureDescription: featureDescription,
                name: event.name,
                version: event.version,
                description: event.description,
                properties: message.properties,
                propertiesPath: event.schemaPath + ".properties.properties"
            ) {
                report.refusals.append(.init(source: event.source, reason: reason))
                continue
            }
            report.importedCount += 1
            for part in message.droppedParts {
                report.refusals.append(.init(source: "\(file) \(event.schemaPath)\(part.path)", reason: part.reason))
            }
        }
        report.plans = builder.plans
        return report
    }
}
