import TallyCore
package import TallySchema

/// `tally schema verify`'s report, for people and for CI.
package enum VerifyReportRenderer {
    package static func text(_ report: VerifyReport, registry: SchemaRegistry) -> String {
        var lines = [
            "read \(report.filesParsed) Swift file\(report.filesParsed == 1 ? "" : "s") "
                + "(\(report.generatedFiles) generated), \(report.conformances.count) TrackingEventContract "
                + "type\(report.conformances.count == 1 ? "" : "s"); \(Set(report.coded.map(\.name)).count) events "
                + "coded, \(registry.eventNames.count) planned"
        ]
        if !report.plannedNotCoded.isEmpty {
            lines.append("planned, not coded (\(report.plannedNotCoded.count)):")
            let width = report.plannedNotCoded.map(\.name.count).max() ?? 0
            for event in report.plannedNotCoded {
                lines.append(
                    "  \(event.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(event.declaredIn)"
                )
            }
        }
        if !report.codedNotPlanned.isEmpty {
            lines.append("coded, not planned (\(report.codedNotPlanned.count)):")
            let width = report.codedNotPlanned.map(\.name.count).max() ?? 0
            for event in report.codedNotPlanned {
                lines.append(
                    "  \(event.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(event.location)  (\(event.via))"
                )
            }
        }
        if !report.unresolved.isEmpty {
            lines.append("cannot tell (\(report.unresolved.count)):")
            for item in report.unresolved { lines.append("  \(item.location): \(item.message)") }
        }
        lines.append(report.hasFindings ? "verify: findings above" : "verify: plans and code agree")
        return lines.joined(separator: "\n")
    }

    package static func json(_ report: VerifyReport) -> String {
        func string(_ text: String) -> JSONValue { .string(text) }
        func location(_ location: SourceLocation) -> [JSONMember] {
            [
                JSONMember(key: "file", value: string(location.file)),
                JSONMember(key: "line", value: .number(JSONNumber(text: String(location.line)))),
            ]
        }
        let value = JSONValue.object([
            JSONMember(
                key: "planned_not_coded",
                value: .array(
                    report.plannedNotCoded.map {
                        .object([
                            JSONMember(key: "event", value: string($0.name)),
                            JSONMember(key: "feature", value: string($0.feature)),
                            JSONMember(key: "declared_in", value: string($0.declaredIn)),
                        ])
                    }
                )
            ),
            JSONMember(
                key: "coded_not_planned",
                value: .array(
                    report.codedNotPlanned.map {
                        .object(
                            [JSONMember(key: "event", value: string($0.name))] + location($0.location) + [
                                JSONMember(key: "via", value: string($0.via))
                            ]
                        )
                    }
                )
            ),
            JSONMember(
                key: "unresolved",
                value: .array(
                    report.unresolved.map {
                        .object(location($0.location) + [JSONMember(key: "message", value: string($0.message))])
                    }
                )
            ),
            JSONMember(
                key: "coded",
                value: .array(
                    report.coded.map {
                        .object(
                            [JSONMember(key: "event", value: string($0.name))] + location($0.location) + [
                                JSONMember(key: "via", value: string($0.via))
                            ]
                        )
                    }
                )
            ),
        ])
        return JSONWriter.text(value, pretty: true)
    }
}
