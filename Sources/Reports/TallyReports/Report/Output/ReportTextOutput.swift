import Foundation
import TallyCore

/// A report's answer for people (`--format table`) and as plain numbers (`--format csv`).
package enum ReportTextOutput {
    package static func table(_ result: ReportResult, scope: ReportScope, store: String) -> String {
        var text = "store: \(store)\n"
        let range = "\(scope.zone.label(scope.since)) to \(scope.zone.label(scope.until)) (\(scope.zone.identifier))"
        switch result {
        case .trends(let trends):
            text += "trends: \(trends.measure) per \(trends.interval), \(range)\n"
            var header = ["bucket"]
            for series in trends.series {
                header.append(series.breakdown.map { "\(series.event) [\($0)]" } ?? series.event)
            }
            let single = trends.series.count == 1
            var grid = TextGrid(header: header, rightAligned: Set(1..<max(header.count, 2)))
            let peak = single ? trends.series[0].values.compactMap(Self.number).max() ?? 0 : 0
            for (index, bucket) in trends.buckets.enumerated() {
                var row = [scope.zone.label(bucket)] + trends.series.map { $0.values[index].displayText }
                if single, peak > 0, let value = Self.number(trends.series[0].values[index]) {
                    row.append(TextGrid.bar(value / peak))
                }
                grid.add(row)
            }
            grid.add(["total"] + trends.series.map(\.total.displayText))
            if trends.series.contains(where: { $0.previous != nil }) {
                grid.add(["previous period"] + trends.series.map { ($0.previousTotal ?? .none).displayText })
            }
            text += grid.render()
        case .breakdown(let breakdown):
            text += "breakdown by \(breakdown.field), \(range)\n"
            var grid = TextGrid(header: ["value", "events", "actors", "estimated", ""], rightAligned: [1, 2, 3])
            for row in breakdown.rows {
                let share = breakdown.total.events > 0 ? Double(row.events) / Double(breakdown.total.events) : 0
                grid.add([row.value, "\(row.events)", "\(row.actors)", "\(row.estimated)", TextGrid.bar(share)])
            }
            grid.add([
                "total", "\(breakdown.total.events)", "\(breakdown.total.actors)", "\(breakdown.total.estimated)",
            ])
            text += grid.render()
        case .funnel(let funnel):
            let window = ReportRange.durationText(funnel.window)
            text += "funnel (\(funnel.order.rawValue), window \(window)), \(range)\n"
            text += Self.funnelGrid(funnel.steps)
            for row in funnel.breakdown ?? [] {
                text += "\n\(row.value):\n" + Self.funnelGrid(row.steps)
            }
        case .retention(let retention):
            text += "retention (\(retention.cohortMode.rawValue) cohorts, per \(retention.period)), \(range)\n"
            let offsets = (0...retention.periods).map { "\($0)" }
            var grid = TextGrid(header: ["cohort", "size"] + offsets, rightAligned: Set(1...(retention.periods + 2)))
            for cohort in retention.cohorts {
                grid.add(
                    [scope.zone.label(cohort.start), "\(cohort.size)"]
                        + cohort.counts.map { $0.map { TextGrid.percent($0, cohort.size) } ?? "" }
                )
            }
            text += grid.render()
        case .actors(let actors):
            text += "\(actors.actors.count) actor\(actors.actors.count == 1 ? "" : "s")\n"
            text += actors.actors.joined(separator: "\n") + (actors.actors.isEmpty ? "" : "\n")
        }
        if ReportJSONOutput.sampled(result) {
            text += "sampled events were read: counts are of stored events (estimated: with their weights)\n"
        }
        return text
    }

    private static func number(_ value: MeasureValue) -> Double? {
        switch value {
        case .count(let count): Double(count)
        case .decimal(let decimal): Double(decimal.description)
        case .none: nil
        }
    }

    private static func funnelGrid(_ steps: [FunnelResult.Step]) -> String {
        var grid = TextGrid(
            header: ["step", "event", "actors", "from first", "from previous", "median time", ""],
            rightAligned: [0, 2, 3, 4, 5]
        )
        let first = steps.first?.actors ?? 0
        for (index, step) in steps.enumerated() {
            let previous = index == 0 ? step.actors : steps[index - 1].actors
            grid.add([
                "\(step.step)", step.label, "\(step.actors)", TextGrid.percent(step.actors, first),
                index == 0 ? "" : TextGrid.percent(step.actors, previous),
                step.medianFromPrevious.map(TextGrid.duration) ?? "",
                TextGrid.bar(first > 0 ? Double(step.actors) / Double(first) : 0),
            ])
        }
        return grid.render()
    }

    package static func csv(_ result: ReportResult, scope: ReportScope) -> String {
        var lines: [String] = []
        switch result {
        case .trends(let trends):
            lines.append("bucket,event,breakdown,value" + (trends.measure == .count ? ",estimated" : ""))
            for series in trends.series {
                for (index, bucket) in trends.buckets.enumerated() {
                    var fields = [
                        scope.zone.label(bucket), series.event, series.breakdown ?? "", series.values[index].jsonText,
                    ]
                    if let estimated = series.estimated { fields.append("\(estimated[index])") }
                    lines.append(fields.map(field).joined(separator: ","))
                }
            }
        case .breakdown(let breakdown):
            lines.append("value,events,actors,estimated")
            for row in breakdown.rows {
                lines.append(
                    [row.value, "\(row.events)", "\(row.actors)", "\(row.estimated)"].map(field).joined(separator: ",")
                )
            }
        case .funnel(let funnel):
            lines.append(
                "breakdown,step,event,actors,conversion_from_first,conversion_from_previous,median_us_from_previous"
            )
            let rows: [(value: String, steps: [FunnelResult.Step])] =
                [(value: "", steps: funnel.steps)] + (funnel.breakdown ?? []).map { ($0.value, $0.steps) }
            for row in rows {
                let first = row.steps.first?.actors ?? 0
                for (index, step) in row.steps.enumerated() {
                    let previous = index == 0 ? step.actors : row.steps[index - 1].actors
                    lines.append(
                        [
                            row.value, "\(step.step)", step.label, "\(step.actors)",
                            ReportJSONOutput.ratioText(step.actors, first),
                            ReportJSONOutput.ratioText(step.actors, previous),
                            step.medianFromPrevious.map { "\($0 / 1_000)" } ?? "",
                        ].map(field).joined(separator: ",")
                    )
                }
            }
        case .retention(let retention):
            lines.append("cohort,size," + (0...retention.periods).map { "period_\($0)" }.joined(separator: ","))
            for cohort in retention.cohorts {
                lines.append(
                    ([scope.zone.label(cohort.start), "\(cohort.size)"]
                        + cohort.counts.map { $0.map(String.init) ?? "" })
                        .joined(separator: ",")
                )
            }
        case .actors(let actors):
            lines.append("actor")
            lines += actors.actors.map(field)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension MeasureValue {
    /// For the table: the number, or blank.
    var displayText: String {
        switch self {
        case .none: ""
        default: jsonText
        }
    }
}
