import TallyReports

/// `/retention`: do actors come back; a cohort table shaded by share.
enum RetentionPage {
    static func render(_ layout: PageLayout, _ context: DashboardContext) async -> String {
        let parameters = layout.parameters
        let hidden = layout.sharedQuery.map {
            "<input type=\"hidden\" name=\"\(HTML.escape($0.0))\" value=\"\(HTML.escape($0.1))\">"
        }.joined()
        let period = parameters.first("period") ?? "week"
        let periods = ["day", "week", "month"].map { "<option\($0 == period ? " selected" : "")>\($0)</option>" }
            .joined()
        let mode = parameters.first("cohort_mode") ?? "first-time"
        let modes = ["first-time", "recurring"].map { "<option\($0 == mode ? " selected" : "")>\($0)</option>" }
            .joined()
        var content = """
            <form class="build" method="get" action="/retention">\(hidden)
            <label>Start event<input name="start" value="\(HTML.escape(parameters.first("start") ?? ""))" placeholder="app_opened"></label>
            <label>Return event<input name="return" value="\(HTML.escape(parameters.first("return") ?? ""))" placeholder="player_opened"></label>
            <label>Period<select name="period">\(periods)</select></label>
            <label>Periods<input name="periods" value="\(HTML.escape(parameters.first("periods") ?? "8"))"></label>
            <label>Cohorts<select name="cohort_mode">\(modes)</select></label>
            <label>&nbsp;<button type="submit">Show retention</button></label></form>
            """
        guard parameters.first("start") != nil, parameters.first("return") != nil else {
            return layout.render(content + "<p class=\"muted\">Name a start event and a return event.</p>")
        }
        var items: [(String, String)] = []
        for name in ["start", "return", "period", "periods", "cohort_mode"] {
            if let value = parameters.first(name) { items.append((name, value)) }
        }
        content += await context.panel("Retention", kind: "retention", items, shared: layout.sharedQuery)
        return layout.render(content)
    }
}
