import TallyCore
import TallyReports

/// `/`: how many people use each feature, which events move, and whether the tracking is healthy.
enum OverviewPage {
    /// The causes an `outbox_diagnostics` report counts (docs/delivery.md).
    static let dropCauses = [
        "dropped_queue", "dropped_caps", "dropped_disk_full", "corrupt_events", "dead_lettered_events",
    ]

    static func render(_ layout: PageLayout, _ context: DashboardContext) async -> String {
        let shared = layout.sharedQuery
        async let byFeature = context.panel(
            "Events by feature",
            kind: "trends",
            [("by", "feature"), ("top", "8"), ("interval", "day")],
            shared: shared
        )
        async let daily = context.panel(
            "Daily active actors",
            kind: "trends",
            [("measure", "actors"), ("interval", "day")],
            shared: shared
        )
        async let weekly = context.panel(
            "Weekly active actors",
            kind: "trends",
            [("measure", "actors"), ("interval", "week")],
            shared: shared
        )
        async let monthly = context.panel(
            "Monthly active actors",
            kind: "trends",
            [("measure", "actors"), ("interval", "month")],
            shared: shared
        )
        async let top = topEvents(layout, context)
        async let quality = dataQuality(layout, context)
        let panels = await [byFeature, daily, top, quality, weekly, monthly]
        return layout.render("<div class=\"grid\">" + panels.joined() + "</div>")
    }

    /// The ten most frequent events with their change against the previous period of the same length.
    static func topEvents(_ layout: PageLayout, _ context: DashboardContext) async -> String {
        let items = [("by", "name"), ("top", "10"), ("compare", "1"), ("interval", "month")]
        let query = layout.sharedQuery + items
        do {
            let report = try DashboardContext.parameters(query).trends()
            let (scope, result) = try await context.store.run(report)
            guard case .trends(let trends) = result else { return "" }
            var rows = ""
            for series in trends.series {
                let total = Self.integer(series.total)
                let previous = Self.integer(series.previousTotal ?? .none)
                let change: String
                if previous == 0 {
                    change = total > 0 ? "<span class=\"up\">new</span>" : ""
                } else {
                    let percent = Double(total - previous) * 100 / Double(previous)
                    change =
                        "<span class=\"\(percent >= 0 ? "up" : "down")\">\(percent >= 0 ? "+" : "")\(Int(percent.rounded())) %</span>"
                }
                let name = series.breakdown ?? series.event
                let link = layout.link("/events", [("event", name)])
                rows +=
                    "<tr><td><a href=\"\(link)\">\(HTML.escape(name))</a></td>"
                    + "<td class=\"n\" data-value=\"\(total)\">\(HTML.grouped(String(total)))</td>"
                    + "<td class=\"n\" data-value=\"\(previous)\">\(HTML.grouped(String(previous)))</td><td class=\"n\">\(change)</td></tr>"
            }
            let source = ResultView.Source(path: "/api/v1/report/trends", query: query)
            return """
                <section class="panel" data-kind="trends" data-json="\(source.url(format: "json"))"><h2>Top events</h2>
                <div class="table"><table><thead><tr><th>event</th><th class="n">events</th><th class="n">previous period</th>\
                <th class="n">change</th></tr></thead><tbody>\(rows)</tbody></table></div>
                <div class="links"><a href="\(source.url(format: "csv"))">CSV</a><a href="\(source.url(format: "json"))">JSON</a>\
                <span class="muted">\(HTML.escape(scope.zone.label(scope.since))) to \(HTML.escape(scope.zone.label(scope.until)))</span></div>
                </section>
                """
        } catch {
            return DashboardContext.failedPanel("Top events", error)
        }
    }

    /// Rejected events by reason, and what the devices reported dropping.
    static func dataQuality(_ layout: PageLayout, _ context: DashboardContext) async -> String {
        do {
            let report = try DashboardContext.parameters(layout.sharedQuery).trends()
            let (since, until) = try report.range.resolve(in: report.zone, now: .now())
            let rejects = try await context.rejects(since: since, until: until)
            let drops = await deviceDrops(layout, context)
            var html =
                "<section class=\"panel\"><h2>Data quality</h2><div class=\"figure\"><div class=\"table\"><table>"
                + "<thead><tr><th>rejected, by reason</th><th class=\"n\">events</th></tr></thead><tbody>"
            html += rejects.isEmpty ? "<tr><td class=\"muted\">none</td><td></td></tr>" : ""
            for (reason, count) in rejects.prefix(8) {
                html +=
                    "<tr><td>\(HTML.escape(reason))</td><td class=\"n\" data-value=\"\(count)\">\(HTML.grouped(String(count)))</td></tr>"
            }
            html +=
                "</tbody></table></div><div class=\"table\"><table><thead><tr><th>dropped on devices</th>"
                + "<th class=\"n\">events</th></tr></thead><tbody>"
            for (cause, count) in drops {
                html +=
                    "<tr><td>\(HTML.escape(cause))</td><td class=\"n\" data-value=\"\(count)\">\(HTML.grouped(String(count)))</td></tr>"
            }
            return html
                + "</tbody></table></div></div><div class=\"links\"><a href=\"\(layout.link("/plans"))\">Tracking plans</a></div></section>"
        } catch {
            return DashboardContext.failedPanel("Data quality", error)
        }
    }

    /// The drops the devices' `outbox_diagnostics` reports add up to, by cause.
    static func deviceDrops(_ layout: PageLayout, _ context: DashboardContext) async -> [(String, Int)] {
        var drops: [(String, Int)] = []
        for cause in dropCauses {
            let items = [("event", "outbox_diagnostics"), ("measure", "sum:\(cause)"), ("interval", "month")]
            guard let report = try? DashboardContext.parameters(layout.sharedQuery + items).trends(),
                case .trends(let trends)? = try? await context.store.run(report).1
            else { continue }
            drops.append((cause, trends.series.first.map { integer($0.total) } ?? 0))
        }
        return drops
    }

    static func integer(_ value: MeasureValue) -> Int {
        switch value {
        case .count(let count): count
        case .decimal(let decimal): Int(decimal.description) ?? 0
        case .none: 0
        }
    }
}
