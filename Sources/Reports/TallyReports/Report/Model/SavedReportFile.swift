import TallyCore

/// A saved report file: one report, or a dashboard `{"title": …, "reports": [ … ]}`.
package struct SavedReportFile: Sendable {
    /// The dashboard's title (nil for a file of one report).
    package var title: String?
    package var reports: [Report]

    package init(_ bytes: [UInt8]) throws(ReportError) {
        let value: JSONValue
        do throws(JSONError) {
            value = try JSONParser.parse(bytes)
        } catch {
            throw ReportError(.syntax, path: "$", "not JSON: \(error)")
        }
        if case .array(let items)? = value["reports"] {
            if case .string(let title)? = value["title"] { self.title = title }
            var reports: [Report] = []
            for (index, item) in items.enumerated() {
                reports.append(try ReportJSON.decode(item, path: "$.reports[\(index)]"))
            }
            guard !reports.isEmpty else {
                throw ReportError(.missing, path: "$.reports", "a dashboard lists its reports")
            }
            self.reports = reports
        } else {
            reports = [try ReportJSON.decode(value)]
        }
    }
}
