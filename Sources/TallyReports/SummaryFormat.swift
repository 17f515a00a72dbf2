import TallyCore

/// Renders summaries for people (`table`) and programs (`json`, `csv`).
public enum SummaryFormat: String, Sendable, CaseIterable {
    case table, json, csv

    /// `summary` as text in this format, ending with a newline.
    public func render(_ summary: Summary, query: SummaryQuery) -> String {
        switch self {
        case .table: Self.table(summary, query: query)
        case .json: Self.json(summary, query: query)
        case .csv: Self.csv(summary, query: query)
        }
    }

    private static func json(_ summary: Summary, query: SummaryQuery) -> String {
        var bytes: [UInt8] = []
        bytes.append(contentsOf: #"{"group_by":"#.utf8)
        JSONWriter.appendString(query.grouping.rawValue, to: &bytes)
        bytes.append(contentsOf: #","rows":["#.utf8)
        for (index, row) in summary.rows.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "{"))
            JSONWriter.appendString(query.grouping.rawValue, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            JSONWriter.appendString(row.key, to: &bytes)
            for (key, value) in [
                ("events", row.events), ("unique_users", row.uniqueUsers), ("event_types", row.eventTypes),
            ] {
                bytes.append(UInt8(ascii: ","))
                JSONWriter.appendString(key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                JSONWriter.appendInteger(Int64(value), to: &bytes)
            }
            bytes.append(contentsOf: #","first_seen":""#.utf8)
            row.firstSeen.appendRFC3339(to: &bytes)
            bytes.append(contentsOf: #"","last_seen":""#.utf8)
            row.lastSeen.appendRFC3339(to: &bytes)
            bytes.append(contentsOf: #""}"#.utf8)
        }
        bytes.append(contentsOf: #"],"total_events":"#.utf8)
        JSONWriter.appendInteger(Int64(summary.rows.reduce(0) { $0 + $1.events }), to: &bytes)
        bytes.append(contentsOf: #","duplicates_skipped":"#.utf8)
        JSONWriter.appendInteger(Int64(summary.duplicates), to: &bytes)
        bytes.append(contentsOf: #","unreadable_lines":"#.utf8)
        JSONWriter.appendInteger(Int64(summary.unreadableLines + summary.tornLines), to: &bytes)
        if !summary.identities.isEmpty {
            bytes.append(contentsOf: #","identities":{"#.utf8)
            for (index, kind) in EventKind.allCases.filter(\.isIdentity).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(kind.rawValue, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                JSONWriter.appendInteger(Int64(summary.identities[kind] ?? 0), to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(contentsOf: "}\n".utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func csv(_ summary: Summary, query: SummaryQuery) -> String {
        var text = "\(query.grouping.rawValue),events,unique_users,event_types,first_seen,last_seen\n"
        for row in summary.rows {
            text += "\(csvField(row.key)),\(row.events),\(row.uniqueUsers),\(row.eventTypes),"
            text += "\(row.firstSeen.rfc3339),\(row.lastSeen.rfc3339)\n"
        }
        return text
    }

    private static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private static func table(_ summary: Summary, query: SummaryQuery) -> String {
        let headers = [query.grouping.rawValue, "events", "users", "types", "first seen", "last seen"]
        var rows = summary.rows.map { row in
            [
                row.key, "\(row.events)", "\(row.uniqueUsers)", "\(row.eventTypes)",
                String(row.firstSeen.rfc3339.prefix(19)) + "Z", String(row.lastSeen.rfc3339.prefix(19)) + "Z",
            ]
        }
        let total = summary.rows.reduce(0) { $0 + $1.events }
        let isTimeSeries = query.grouping == .day || query.grouping == .hour
        let peak = summary.rows.map(\.events).max() ?? 0
        var widths = headers.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: max(0, widths[index] - cell.count))
                return index == 0 ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
        var text = line(headers) + (isTimeSeries ? "  " : "") + "\n"
        for (index, row) in summary.rows.enumerated() {
            var rendered = line(rows[index])
            if isTimeSeries, peak > 0 {
                let width = Int((Double(row.events) / Double(peak) * 30).rounded(.up))
                rendered += "  " + String(repeating: "█", count: max(1, width))
            }
            text += rendered + "\n"
        }
        rows.removeAll()
        if summary.rows.isEmpty { text += "(no events)\n" }
        text +=
            "\(total) events in \(summary.rows.count) \(query.grouping.rawValue == "day" ? "days" : query.grouping.rawValue == "hour" ? "hours" : query.grouping.rawValue + "s")"
        if summary.duplicates > 0 { text += "; \(summary.duplicates) duplicate copies skipped" }
        if summary.unreadableLines + summary.tornLines > 0 {
            text += "; \(summary.unreadableLines + summary.tornLines) unreadable lines in the store skipped"
        }
        if !summary.identities.isEmpty {
            let parts = EventKind.allCases.filter(\.isIdentity).map { "\(summary.identities[$0] ?? 0) \($0.rawValue)" }
            text += "\nidentity records (not events): " + parts.joined(separator: ", ")
        }
        return text + "\n"
    }
}
