import Foundation
package import TallyReports

/// A report's answer as a panel: its chart, its numbers in a table beside it (each number also in
/// `data-value`, as the JSON has it), and links to the same report as CSV and JSON.
package enum ResultView {
    /// Where the panel's report is in the API: a path and its query (the page's, or a saved
    /// report's name and index).
    package struct Source: Sendable {
        package var path: String
        package var query: [(String, String)]

        package init(path: String, query: [(String, String)]) {
            self.path = path
            self.query = query
        }

        func url(format: String) -> String {
            let items = query.filter { $0.0 != "format" } + (format == "json" ? [] : [("format", format)])
            return HTML.escape(items.isEmpty ? path : path + "?" + HTML.query(items))
        }
    }

    package static func render(_ result: ReportResult, scope: ReportScope, source: Source, title: String) -> String {
        let figure: String
        switch result {
        case .trends(let trends): figure = self.trends(trends, scope: scope)
        case .breakdown(let breakdown): figure = self.breakdown(breakdown)
        case .funnel(let funnel): figure = self.funnel(funnel, source: source)
        case .retention(let retention): figure = self.retention(retention, scope: scope)
        case .actors(let actors): figure = self.actors(actors)
        }
        let sampled =
            ReportJSONOutput.value(result, scope: scope, store: nil)["sampled"] == .bool(true)
            ? "<p class=\"muted\">Sampled events were read: counts are of stored events; <i>estimated</i> weighs them.</p>"
            : ""
        return """
            <section class="panel" data-kind="\(scope.report.body.kind)" data-json="\(source.url(format: "json"))">
            <h2>\(HTML.escape(title))</h2>\(figure)\(sampled)
            <div class="links"><a href="\(source.url(format: "csv"))">CSV</a><a href="\(source.url(format: "json"))">JSON</a>\
            <span class="muted">\(HTML.escape(scope.zone.label(scope.since))) to \(HTML.escape(scope.zone.label(scope.until)))</span></div>
            </section>
            """
    }

    static func cell(_ value: MeasureValue) -> String {
        switch value {
        case .none: "<td class=\"n\" data-value=\"null\"></td>"
        default: "<td class=\"n\" data-value=\"\(value.jsonText)\">\(HTML.grouped(value.jsonText))</td>"
        }
    }

    static func cell(_ value: Int) -> String {
        "<td class=\"n\" data-value=\"\(value)\">\(HTML.grouped(String(value)))</td>"
    }

    static func double(_ value: MeasureValue) -> Double? {
        switch value {
        case .count(let count): Double(count)
        case .decimal(let decimal): Double(decimal.description)
        case .none: nil
        }
    }

    /// Short bucket names for the axis: the date, or the hour.
    static func shortLabel(_ label: String, interval: ReportInterval) -> String {
        let parts = label.split(separator: "T")
        guard parts.count == 2 else { return label }
        switch interval {
        case .hour: return String(parts[1].prefix(5))
        case .month: return String(parts[0].prefix(7))
        default: return String(parts[0].dropFirst(5))
        }
    }

    static func trends(_ trends: TrendsResult, scope: ReportScope) -> String {
        let labels = trends.buckets.map(scope.zone.label)
        let series = trends.series.map { entry in
            SVGChart.Series(name: seriesName(entry, count: trends.series.count), values: entry.values.map(double))
        }
        let short = labels.map { shortLabel($0, interval: trends.interval) }
        let stacked =
            trends.series.count > 1 && trends.series.allSatisfy { $0.breakdown != nil } && trends.measure == .count
        let chart =
            stacked
            ? SVGChart.stacked(
                series,
                xLabels: short,
                titles: labels,
                label: "\(trends.measure) per \(trends.interval)"
            )
            : SVGChart.line(series, xLabels: short, titles: labels, label: "\(trends.measure) per \(trends.interval)")
        var table = "<table><thead><tr><th>bucket</th>"
        table += series.map { "<th class=\"n\">\(HTML.escape($0.name))</th>" }.joined() + "</tr></thead><tbody>"
        for (index, label) in labels.enumerated() {
            table +=
                "<tr><td data-bucket=\"\(HTML.escape(label))\" title=\"\(HTML.escape(label))\">"
                + "\(HTML.escape(tableLabel(label, interval: trends.interval)))</td>"
                + trends.series.map { cell($0.values[index]) }.joined() + "</tr>"
        }
        table += "<tr><th>total</th>" + trends.series.map { cell($0.total) }.joined() + "</tr>"
        if trends.series.contains(where: { $0.previous != nil }) {
            table +=
                "<tr><th>previous period</th>" + trends.series.map { cell($0.previousTotal ?? .none) }.joined()
                + "</tr>"
        }
        let legend =
            series.count > 1
            ? "<div class=\"legend\">"
                + series.enumerated().map { index, entry in
                    "<span><i style=\"background:\(SVGChart.color(index))\"></i>\(HTML.escape(entry.name))</span>"
                }.joined() + "</div>" : ""
        return "<div class=\"figure\">\(chart)\(legend)<div class=\"table\">\(table)</tbody></table></div></div>"
    }

    /// A series for people: its event (`all events` for a selector of every event), and its
    /// breakdown value when it has one (alone when every series is of one event).
    static func seriesName(_ series: TrendsResult.Series, count: Int) -> String {
        let event = series.event.isEmpty ? "all events" : series.event
        guard let value = series.breakdown else { return event }
        return series.event.isEmpty ? value : "\(event) · \(value)"
    }

    /// A bucket in the table: the date for days, weeks and months, date and time for hours (the
    /// offset only when it is not the zone's usual one is left to the title).
    static func tableLabel(_ label: String, interval: ReportInterval) -> String {
        let parts = label.split(separator: "T")
        guard parts.count == 2 else { return label }
        switch interval {
        case .hour: return parts[0] + " " + parts[1].prefix(5) + String(parts[1].dropFirst(8))
        case .month: return String(parts[0].prefix(7))
        default: return String(parts[0])
        }
    }

    static func breakdown(_ breakdown: BreakdownResult) -> String {
        let chart = SVGChart.bars(
            breakdown.rows.prefix(20).map {
                (
                    label: $0.value, value: Double($0.events),
                    title: "\($0.value): \($0.events) events, \($0.actors) actors"
                )
            },
            label: "events by \(breakdown.field)"
        )
        var table =
            "<table><thead><tr><th>\(HTML.escape(breakdown.field.description))</th><th class=\"n\">events</th>"
            + "<th class=\"n\">actors</th><th class=\"n\">estimated</th></tr></thead><tbody>"
        for row in breakdown.rows {
            table +=
                "<tr><td>\(HTML.escape(row.value))</td>\(cell(row.events))\(cell(row.actors))\(cell(row.estimated))</tr>"
        }
        table +=
            "<tr><th>total</th>\(cell(breakdown.total.events))\(cell(breakdown.total.actors))\(cell(breakdown.total.estimated))</tr>"
        return "<div class=\"figure\">\(chart)<div class=\"table\">\(table)</tbody></table></div></div>"
    }

    static func funnel(_ funnel: FunnelResult, source: Source) -> String {
        func figure(_ steps: [FunnelResult.Step], value: String?) -> String {
            let first = steps.first?.actors ?? 0
            let chart = SVGChart.bars(
                steps.map { step in
                    (
                        label: "\(step.step). \(step.label)", value: Double(step.actors),
                        title:
                            "step \(step.step) \(step.label): \(step.actors) actors, \(ReportJSONOutput.ratioText(step.actors, first)) of the first"
                    )
                },
                label: "actors per step"
            )
            var table =
                "<table><thead><tr><th>step</th><th class=\"n\">actors</th><th class=\"n\">from first</th>"
                + "<th class=\"n\">from previous</th><th class=\"n\">median time</th><th>actors</th></tr></thead><tbody>"
            for (index, step) in steps.enumerated() {
                let previous = index == 0 ? nil : steps[index - 1].actors
                let drill =
                    source.query.filter { !["format", "reached", "dropped_after", "value", "of"].contains($0.0) }
                    + [("of", "funnel"), ("format", "csv")] + (value.map { [("value", $0)] } ?? [])
                let reached = HTML.escape("/api/v1/report/actors?" + HTML.query(drill + [("reached", "\(step.step)")]))
                let dropped = HTML.escape(
                    "/api/v1/report/actors?" + HTML.query(drill + [("dropped_after", "\(step.step)")])
                )
                table += "<tr><td>\(step.step). \(HTML.escape(step.label))</td>\(cell(step.actors))"
                table +=
                    "<td class=\"n\" data-value=\"\(ReportJSONOutput.ratioText(step.actors, first))\">\(percent(step.actors, first))</td>"
                if let previous {
                    table +=
                        "<td class=\"n\" data-value=\"\(ReportJSONOutput.ratioText(step.actors, previous))\">\(percent(step.actors, previous))</td>"
                } else {
                    table += "<td class=\"n\" data-value=\"null\"></td>"
                }
                table +=
                    "<td class=\"n\" data-value=\"\(step.medianFromPrevious.map { String($0 / 1_000) } ?? "null")\">"
                    + "\(step.medianFromPrevious.map(duration) ?? "")</td>"
                table +=
                    "<td><a href=\"\(reached)\">reached</a>"
                    + (index + 1 < steps.count ? " · <a href=\"\(dropped)\">dropped</a>" : "") + "</td></tr>"
            }
            return "<div class=\"figure\">\(chart)<div class=\"table\">\(table)</tbody></table></div></div>"
        }
        var html = figure(funnel.steps, value: nil)
        for row in funnel.breakdown ?? [] {
            html += "<h3>\(HTML.escape(row.value))</h3>" + figure(row.steps, value: row.value)
        }
        return html
    }

    static func retention(_ retention: RetentionResult, scope: ReportScope) -> String {
        let rows = retention.cohorts.map { cohort in
            (
                label: String(scope.zone.label(cohort.start).prefix(10)),
                shares: cohort.counts.map { count in
                    count.map { cohort.size > 0 ? Double($0) / Double(cohort.size) : 0 }
                },
                titles: cohort.counts.enumerated().map { offset, count in
                    "\(scope.zone.label(cohort.start)) +\(offset): "
                        + (count.map { "\($0) of \(cohort.size)" } ?? "not known yet")
                }
            )
        }
        let chart = SVGChart.heatmap(rows: rows, columns: retention.periods + 1, label: "returning share by cohort")
        var table =
            "<table><thead><tr><th>cohort</th><th class=\"n\">size</th>"
            + (0...retention.periods).map { "<th class=\"n\">\($0)</th>" }.joined() + "</tr></thead><tbody>"
        for cohort in retention.cohorts {
            let start = scope.zone.label(cohort.start)
            table +=
                "<tr><td data-bucket=\"\(HTML.escape(start))\" title=\"\(HTML.escape(start))\">"
                + "\(HTML.escape(tableLabel(start, interval: retention.period)))</td>\(cell(cohort.size))"
            for count in cohort.counts {
                if let count {
                    table +=
                        "<td class=\"n\" data-value=\"\(count)\" title=\"\(count) of \(cohort.size)\">\(percent(count, cohort.size))</td>"
                } else {
                    table += "<td class=\"n\" data-value=\"null\"></td>"
                }
            }
            table += "</tr>"
        }
        return "<div class=\"figure\">\(chart)<div class=\"table\">\(table)</tbody></table></div></div>"
    }

    static func actors(_ actors: ActorsResult) -> String {
        let shown = actors.actors.prefix(500)
        return
            "<p>\(actors.actors.count) actors\(actors.actors.count > shown.count ? " (the first \(shown.count) shown; the CSV has all)" : "")</p>"
            + "<div class=\"table\"><table><tbody>"
            + shown.map { "<tr><td>\(HTML.escape($0))</td></tr>" }.joined() + "</tbody></table></div>"
    }

    static func percent(_ count: Int, _ total: Int) -> String {
        guard total > 0 else { return "–" }
        let tenths = (count * 1000 + total / 2) / total
        return "\(tenths / 10).\(tenths % 10) %"
    }

    static func duration(_ nanoseconds: Int64) -> String {
        let seconds = nanoseconds / 1_000_000_000
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3_600 { return "\(seconds / 60)m \(seconds % 60)s" }
        if seconds < 86_400 { return "\(seconds / 3_600)h \(seconds / 60 % 60)m" }
        return "\(seconds / 86_400)d \(seconds / 3_600 % 24)h"
    }
}
