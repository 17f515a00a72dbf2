import TallyCore
package import TallyReports

/// `tally status` as a table for people or JSON for scripts.
package enum StatusRenderer {
    /// The JSON document: `window`, `events_read`, then the arrays `never_seen`, `unplanned`, `drift`
    /// and `rejected`; `store` says what was read.
    package static func json(_ report: StatusReport, window: StatusWindow, store: String) -> String {
        func string(_ text: String?) -> JSONValue { text.map { .string($0) } ?? .null }
        func number(_ value: Int) -> JSONValue { .number(JSONNumber(text: String(value))) }
        func strings(_ values: [String]) -> JSONValue { .array(values.map { .string($0) }) }
        let value = JSONValue.object([
            JSONMember(key: "store", value: .string(store)),
            JSONMember(
                key: "window",
                value: .object([
                    JSONMember(key: "since", value: string(window.since?.rfc3339)),
                    JSONMember(key: "until", value: string(window.until?.rfc3339)),
                ])
            ),
            JSONMember(key: "events_read", value: number(report.eventsRead)),
            JSONMember(
                key: "never_seen",
                value: .array(
                    report.neverSeen.map {
                        .object([
                            JSONMember(key: "event", value: .string($0.event)),
                            JSONMember(key: "feature", value: .string($0.feature)),
                            JSONMember(key: "last_seen", value: string($0.lastSeen?.rfc3339)),
                        ])
                    }
                )
            ),
            JSONMember(
                key: "unplanned",
                value: .array(
                    report.unplanned.map {
                        .object([
                            JSONMember(key: "event", value: .string($0.event)),
                            JSONMember(key: "features", value: strings($0.features)),
                            JSONMember(key: "count", value: number($0.count)),
                            JSONMember(key: "first_seen", value: .string($0.firstSeen.rfc3339)),
                            JSONMember(key: "last_seen", value: .string($0.lastSeen.rfc3339)),
                            JSONMember(key: "app_versions", value: strings($0.appVersions)),
                            JSONMember(key: "sources", value: strings($0.sources)),
                        ])
                    }
                )
            ),
            JSONMember(
                key: "drift",
                value: .array(
                    report.drift.map {
                        .object([
                            JSONMember(key: "event", value: .string($0.event)),
                            JSONMember(key: "version", value: .string($0.version)),
                            JSONMember(key: "kind", value: .string($0.kind.rawValue)),
                            JSONMember(key: "property", value: .string($0.property)),
                            JSONMember(key: "seen_type", value: string($0.seenType)),
                            JSONMember(key: "expected", value: string($0.expected)),
                            JSONMember(key: "count", value: number($0.count)),
                            JSONMember(key: "example_event_id", value: .string($0.example)),
                        ])
                    }
                )
            ),
            JSONMember(
                key: "rejected",
                value: .array(
                    report.rejected.map {
                        .object([
                            JSONMember(key: "reason", value: .string($0.reason)),
                            JSONMember(key: "count", value: number($0.count)),
                        ])
                    }
                )
            ),
        ])
        return JSONWriter.text(value, pretty: true) + "\n"
    }

    /// The table: one section per kind of finding, each with a header row.
    package static func table(_ report: StatusReport, window: StatusWindow, store: String) -> String {
        var text = "store: \(store)\n"
        let since = window.since.map(time) ?? "the beginning"
        let until = window.until.map(time) ?? "now"
        text += "window: \(since) to \(until), \(report.eventsRead) event\(report.eventsRead == 1 ? "" : "s")\n"
        text += section(
            "planned, never seen",
            ["event", "feature", "last seen"],
            report.neverSeen.map { [$0.event, $0.feature, $0.lastSeen.map(time) ?? "never"] }
        )
        text += section(
            "seen, not planned",
            ["event", "count", "first seen", "last seen", "app versions", "sources", "features"],
            report.unplanned.map {
                [
                    $0.event, String($0.count), time($0.firstSeen), time($0.lastSeen), list($0.appVersions),
                    list($0.sources), list($0.features),
                ]
            }
        )
        text += section(
            "drift",
            ["event", "version", "property", "problem", "count", "example event"],
            report.drift.map { drift in
                let problem: String
                switch drift.kind {
                case .typeMismatch: problem = "\(drift.seenType ?? "?"), plan allows \(drift.expected ?? "?")"
                case .undeclared: problem = "not in the plan"
                case .missingRequired: problem = "required, missing"
                }
                return [drift.event, drift.version, drift.property, problem, String(drift.count), drift.example]
            }
        )
        text += section("rejected", ["reason", "count"], report.rejected.map { [$0.reason, String($0.count)] })
        let findings = report.neverSeen.count + report.unplanned.count + report.drift.count + report.rejected.count
        text +=
            findings == 0
            ? "status: plans and data agree\n" : "status: \(findings) finding\(findings == 1 ? "" : "s")\n"
        return text
    }

    private static func section(_ title: String, _ headers: [String], _ rows: [[String]]) -> String {
        guard !rows.isEmpty else { return "\(title): none\n" }
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ")
        }
        return "\(title) (\(rows.count)):\n" + ([headers] + rows).map { "  " + line($0) + "\n" }.joined()
    }

    private static func time(_ timestamp: Timestamp) -> String {
        String(timestamp.rfc3339.prefix(19)) + "Z"
    }

    private static func list(_ values: [String]) -> String {
        values.isEmpty ? "-" : values.joined(separator: ", ")
    }
}
