import TallyCore
import TallyReports

/// `/plans`: the tracking plans against the data (what `tally status` reports: never seen,
/// unplanned, type drift), the rejects by reason, and what the devices reported dropping.
enum PlansPage {
    static func render(_ layout: PageLayout, _ context: DashboardContext) async -> String {
        var content = ""
        do {
            let report = try DashboardContext.parameters(layout.sharedQuery).trends()
            let (since, until) = try report.range.resolve(in: report.zone, now: .now())
            if let registry = context.registry {
                let status = try await context.store.status(
                    StatusWindow(since: since, until: until),
                    registry: registry
                )
                content += section(
                    "Never seen",
                    ["event", "feature", "last seen"],
                    status.neverSeen.map {
                        [$0.event, $0.feature, $0.lastSeen.map { report.zone.label($0) } ?? "never"]
                    }
                )
                content += section(
                    "Unplanned events",
                    ["event", "features", "events", "app versions", "platforms"],
                    status.unplanned.map {
                        [
                            $0.event, $0.features.joined(separator: ", "), String($0.count),
                            $0.appVersions.joined(separator: ", "),
                            $0.sources.joined(separator: ", "),
                        ]
                    }
                )
                content += section(
                    "Drift from the plans",
                    ["event", "version", "property", "problem", "events", "example"],
                    status.drift.map {
                        drift in
                        [
                            drift.event, drift.version, drift.property,
                            drift.kind.rawValue + (drift.seenType.map { ": seen \($0)" } ?? "")
                                + (drift.expected.map { ", planned \($0)" } ?? ""),
                            String(drift.count), drift.example,
                        ]
                    }
                )
            } else {
                content +=
                    "<p class=\"muted\">Start the dashboard with <code>--registry DIR</code> to compare the tracking plans "
                    + "with the data.</p>"
            }
            let rejects = try await context.rejects(since: since, until: until)
            content += section(
                "Rejected events, by reason",
                ["reason", "events"],
                rejects.map { [$0.0, String($0.1)] }
            )
            let drops = await OverviewPage.deviceDrops(layout, context)
            content += section(
                "Dropped on devices (outbox diagnostics), by cause",
                ["cause", "events"],
                drops.map { [$0.0, String($0.1)] }
            )
        } catch {
            content += DashboardContext.failedPanel("Tracking plans", error)
        }
        content +=
            "<div class=\"grid\">"
            + (await context.panel(
                "Device reports by app version",
                kind: "breakdown",
                [("event", "outbox_diagnostics"), ("by", "context.app_version")],
                shared: layout.sharedQuery
            )) + "</div>"
        return layout.render(content)
    }

    static func section(_ title: String, _ header: [String], _ rows: [[String]]) -> String {
        var html = "<section class=\"panel\"><h2>\(HTML.escape(title))</h2>"
        guard !rows.isEmpty else { return html + "<p class=\"muted\">none</p></section>" }
        html +=
            "<div class=\"table\"><table><thead><tr>" + header.map { "<th>\(HTML.escape($0))</th>" }.joined()
            + "</tr></thead><tbody>"
        for row in rows {
            html += "<tr>" + row.map { "<td>\(HTML.escape($0))</td>" }.joined() + "</tr>"
        }
        return html + "</tbody></table></div></section>"
    }
}
