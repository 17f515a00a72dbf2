import TallyReports

/// `/reports` and `/reports/NAME`: every saved report file as panels, in the order each file gives
/// (a team's dashboard is a file in its repository).
enum SavedReportsPage {
    static func render(_ layout: PageLayout, _ context: DashboardContext, name: String?) async throws -> String {
        guard context.reportsDirectory != nil else {
            return layout.render(
                "<p class=\"muted\">Start the dashboard with <code>--reports DIR</code> (a directory of saved reports, "
                    + "JSON) to see them here.</p>"
            )
        }
        var files = context.savedReports()
        if let name {
            files = files.filter { $0.name == name }
            guard !files.isEmpty else { throw DashboardError(.notFound, "no saved report \(name)") }
        }
        guard !files.isEmpty else { return layout.render("<p class=\"muted\">No saved reports yet.</p>") }
        var content = ""
        for file in files {
            content +=
                "<h2><a href=\"\(layout.link("/reports/" + HTML.percentEncoded(file.name)))\">"
                + "\(HTML.escape(file.file?.title ?? file.name))</a></h2>"
            guard let saved = file.file else {
                content += "<p class=\"error\">\(HTML.escape(file.name)).json: \(HTML.escape(file.problem ?? ""))</p>"
                continue
            }
            var panels: [String] = []
            for (index, report) in saved.reports.enumerated() {
                let title = report.title ?? "\(report.body.kind) \(index + 1)"
                let source = ResultView.Source(
                    path: "/api/v1/reports/\(HTML.percentEncoded(file.name))",
                    query: [("index", String(index))]
                )
                do {
                    let (scope, result) = try await context.store.run(report)
                    panels.append(ResultView.render(result, scope: scope, source: source, title: title))
                } catch {
                    panels.append(DashboardContext.failedPanel(title, error))
                }
            }
            content += "<div class=\"grid\">" + panels.joined() + "</div>"
        }
        return layout.render(content)
    }
}
