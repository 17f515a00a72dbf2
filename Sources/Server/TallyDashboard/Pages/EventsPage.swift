import TallyReports
import TallySchema

/// `/events`: pick an event, see its trend, break it down by a property or context field, filter.
enum EventsPage {
    static let contextFields = [
        "context.app_version", "context.platform", "context.os_version", "context.locale", "feature",
    ]

    static func render(_ layout: PageLayout, _ context: DashboardContext) async -> String {
        let parameters = layout.parameters
        let event = parameters.first("event")
        let names = await eventNames(layout, context)
        let options = ([""] + names).map { name in
            "<option value=\"\(HTML.escape(name))\"\(name == event ? " selected" : "")>\(name.isEmpty ? "choose an event" : HTML.escape(name))</option>"
        }.joined()
        var fields = contextFields
        if let event, let schema = context.registry?.event(event) {
            fields = schema.properties.properties.map { "properties." + $0.name } + fields
        }
        let by = parameters.first("by") ?? ""
        let fieldOptions = ([""] + fields).map { field in
            "<option value=\"\(HTML.escape(field))\"\(field == by ? " selected" : "")>\(field.isEmpty ? "no breakdown" : HTML.escape(field))</option>"
        }.joined()
        let measure = parameters.first("measure") ?? "count"
        let interval = parameters.first("interval") ?? "day"
        let intervals = ["hour", "day", "week", "month"].map {
            "<option\($0 == interval ? " selected" : "")>\($0)</option>"
        }.joined()
        let hidden = layout.sharedQuery.map {
            "<input type=\"hidden\" name=\"\(HTML.escape($0.0))\" value=\"\(HTML.escape($0.1))\">"
        }.joined()
        var content = """
            <form class="build" method="get" action="/events">\(hidden)
            <label>Event<select name="event">\(options)</select></label>
            <label>Measure<input name="measure" value="\(HTML.escape(measure))" placeholder="count, actors, avg:duration"></label>
            <label>Interval<select name="interval">\(intervals)</select></label>
            <label>Break down by<select name="by">\(fieldOptions)</select></label>
            <label>Filter<input name="where" value="\(HTML.escape(parameters.first("where") ?? ""))" placeholder="context.platform = ios"></label>
            <label>&nbsp;<button type="submit">Show</button></label></form>
            """
        guard let event else {
            return layout.render(content + "<p class=\"muted\">Choose an event to see its trend and breakdowns.</p>")
        }
        var items = [("event", event), ("measure", measure), ("interval", interval)]
        for filter in parameters.all("where") { items.append(("where", filter)) }
        async let trend = context.panel(
            "\(event): \(measure) per \(interval)",
            kind: "trends",
            items,
            shared: layout.sharedQuery
        )
        var panels = [await trend]
        if !by.isEmpty {
            var breakdown = [("event", event), ("by", by), ("top", "20")]
            for filter in parameters.all("where") { breakdown.append(("where", filter)) }
            panels.append(
                await context.panel("\(event) by \(by)", kind: "breakdown", breakdown, shared: layout.sharedQuery)
            )
            if measure == "count" {
                panels.append(
                    await context.panel(
                        "\(event) per \(interval), by \(by)",
                        kind: "trends",
                        items + [("by", by), ("top", "6")],
                        shared: layout.sharedQuery
                    )
                )
            }
        }
        content += "<div class=\"grid\">" + panels.joined() + "</div>"
        return layout.render(content)
    }

    /// The names of the events in the range, most frequent first: a count by name over a month
    /// interval, which PostgreSQL answers from its hourly counts (a breakdown counts actors too,
    /// from the events themselves).
    static func eventNames(_ layout: PageLayout, _ context: DashboardContext) async -> [String] {
        let items = [("by", "name"), ("top", "100000"), ("interval", "month")]
        guard let report = try? DashboardContext.parameters(layout.sharedQuery + items).trends(),
            case .trends(let trends)? = try? await context.store.run(report).1
        else { return [] }
        return trends.series.compactMap(\.breakdown).filter { $0 != BreakdownValue.other }
    }
}
