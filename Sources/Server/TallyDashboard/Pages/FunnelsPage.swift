import TallyReports

/// `/funnels`: the saved funnels, and a form that builds one (steps, filters, window, order,
/// breakdown); the URL it leads to reproduces the funnel for anyone it is sent to.
enum FunnelsPage {
    static func render(_ layout: PageLayout, _ context: DashboardContext) async -> String {
        let parameters = layout.parameters
        let steps = parameters.all("step")
        let saved = context.savedReports().filter { entry in
            entry.file?.reports.contains { if case .funnel = $0.body { true } else { false } } ?? false
        }
        var content = ""
        if !saved.isEmpty {
            content +=
                "<p>Saved funnels: "
                + saved.map { entry in
                    "<a href=\"\(layout.link("/reports/" + HTML.percentEncoded(entry.name)))\">\(HTML.escape(entry.file?.title ?? entry.file?.reports.first?.title ?? entry.name))</a>"
                }.joined(separator: " · ") + "</p>"
        }
        let hidden = layout.sharedQuery.map {
            "<input type=\"hidden\" name=\"\(HTML.escape($0.0))\" value=\"\(HTML.escape($0.1))\">"
        }.joined()
        let stepFields = (0..<10).map { index in
            let value = index < steps.count ? steps[index] : ""
            return "<label>Step \(index + 1)<input name=\"step\" value=\"\(HTML.escape(value))\" "
                + "placeholder=\"\(index < 2 ? "event_name where property = value" : "optional")\"></label>"
        }.joined()
        let order = parameters.first("order") ?? "ordered"
        let orders = ["ordered", "strict", "unordered"].map {
            "<option\($0 == order ? " selected" : "")>\($0)</option>"
        }.joined()
        content += """
            <form class="build" method="get" action="/funnels" id="funnel-form">\(hidden)\(stepFields)
            <label>Window<input name="window" value="\(HTML.escape(parameters.first("window") ?? "1d"))" placeholder="1d, 12h, 2w"></label>
            <label>Order<select name="order">\(orders)</select></label>
            <label>Exclude<input name="exclude" value="\(HTML.escape(parameters.first("exclude") ?? ""))" placeholder="event between 1 and 2"></label>
            <label>Break down by<input name="by" value="\(HTML.escape(parameters.first("by") ?? ""))" placeholder="context.platform"></label>
            <label>&nbsp;<button type="submit">Build funnel</button></label></form>
            """
        guard steps.count >= 2 else {
            return layout.render(content + "<p class=\"muted\">Give two steps or more to build a funnel.</p>")
        }
        var items = steps.map { ("step", $0) }
        for name in ["window", "order", "exclude", "by", "top"] {
            for value in parameters.all(name) { items.append((name, value)) }
        }
        content += await context.panel("Funnel", kind: "funnel", items, shared: layout.sharedQuery)
        return layout.render(content)
    }
}
