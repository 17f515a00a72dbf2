import TallyCore

/// The `table` format of `tally summary`: for people.
enum SummaryTable {
    static func render(_ summary: Summary, query: SummaryQuery, store: SummaryStore) -> String {
        var text = "store: " + store.headline + "\n"
        // With sampled events, the estimated totals stand beside the stored counts, labelled.
        let sampled = summary.isSampled
        let headers =
            [query.grouping.rawValue] + (sampled ? ["events (stored)", "estimated"] : ["events"])
            + ["users", "types", "first seen", "last seen"]
        let cells = summary.rows.map { Self.cells($0, sampled: sampled) }
        let totalCells = summary.total.map { ["total"] + Self.cells($0, sampled: sampled).dropFirst() }
        var widths = headers.map(\.count)
        for row in cells + (totalCells.map { [$0] } ?? []) {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: max(0, widths[index] - cell.count))
                return index == 0 ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
        let isTimeSeries = query.grouping == .day || query.grouping == .hour
        let peak = summary.rows.map(\.events).max() ?? 0
        text += line(headers) + "\n"
        for (row, rendered) in zip(summary.rows, cells) {
            text += line(rendered)
            if isTimeSeries, peak > 0 {
                let width = Int((Double(row.events) / Double(peak) * 30).rounded(.up))
                text += "  " + String(repeating: "█", count: max(1, width))
            }
            text += "\n"
        }
        if let totalCells {
            text += line(widths.map { String(repeating: "─", count: $0) }) + "\n"
            text += line(totalCells) + "\n"
        } else {
            text += "(no events)\n"
        }
        text += footer(summary, query: query)
        return text + "\n"
    }

    private static func cells(_ row: SummaryRow, sampled: Bool) -> [String] {
        [row.key, "\(row.events)"] + (sampled ? ["~\(row.estimatedEvents)"] : []) + [
            "\(row.uniqueUsers)", "\(row.eventTypes)",
            String(row.firstSeen.rfc3339.prefix(19)) + "Z", String(row.lastSeen.rfc3339.prefix(19)) + "Z",
        ]
    }

    private static func footer(_ summary: Summary, query: SummaryQuery) -> String {
        let events = summary.total?.events ?? 0
        var text = Plural.count(events, "event") + " in " + Plural.count(summary.groupCount, query.grouping.noun)
        if summary.isSampled {
            text += " (stored); about \(summary.total?.estimatedEvents ?? 0) estimated"
        }
        if summary.rows.count < summary.groupCount {
            text += " (\(summary.rows.count) shown, --limit \(query.limit ?? summary.rows.count))"
        }
        if summary.duplicates > 0 {
            text += "; " + Plural.count(summary.duplicates, "duplicate copy", "duplicate copies") + " skipped"
        }
        let unreadable = summary.unreadableLines + summary.tornLines
        if unreadable > 0 { text += "; " + Plural.count(unreadable, "unreadable line") + " in the store skipped" }
        if summary.isSampled {
            text +=
                "\nestimated: each stored event of a sampled kind (x-tally-sample-rate) counts 1 / sample_rate times; "
                + "users are those stored"
        }
        if !summary.identities.isEmpty {
            let parts = EventKind.allCases.filter(\.isIdentity).map { "\(summary.identities[$0] ?? 0) \($0.rawValue)" }
            text += "\nidentity records (not events): " + parts.joined(separator: ", ")
        }
        return text
    }
}
