import TallyCore

/// Renders summaries for people (`table`) and programs (`json`, `csv`).
package enum SummaryFormat: String, Sendable, CaseIterable {
    case table, json, csv

    /// `summary`, read from `store`, as text in this format, ending with a newline.
    ///
    /// The table starts with a `store:` line and ends with a total row; JSON carries the store, the
    /// filters as applied (times in RFC 3339) and the total; CSV holds only the group rows, so
    /// that it loads as one table (the store is named on stderr by the CLI when there is a doubt).
    package func render(_ summary: Summary, query: SummaryQuery, store: SummaryStore) -> String {
        switch self {
        case .table: SummaryTable.render(summary, query: query, store: store)
        case .json: SummaryJSON.render(summary, query: query, store: store)
        case .csv: Self.csv(summary, query: query)
        }
    }

    private static func csv(_ summary: Summary, query: SummaryQuery) -> String {
        // estimated_events last: columns only ever added at the end.
        var text = "\(query.grouping.rawValue),events,unique_users,event_types,first_seen,last_seen,estimated_events\n"
        for row in summary.rows {
            text += "\(csvField(row.key)),\(row.events),\(row.uniqueUsers),\(row.eventTypes),"
            text += "\(row.firstSeen.rfc3339),\(row.lastSeen.rfc3339),\(row.estimatedEvents)\n"
        }
        return text
    }

    private static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
