package import TallyCore

/// Reports as JSON: saved report files (docs/reports.md, Saved reports) and the `report` member
/// of every JSON answer. Errors name the JSON path.
package enum ReportJSON {
    /// A report from its JSON object; `path` prefixes error paths (`$`, `$.reports[2]`).
    package static func decode(_ value: JSONValue, path: String = "$") throws(ReportError) -> Report {
        let object = try Object(value, path: path)
        guard let kind = try object.string("kind") else {
            throw ReportError(
                .missing,
                path: path + ".kind",
                "required: trends, breakdown, funnel, retention or actors"
            )
        }
        var report: Report
        switch kind {
        case "trends":
            var trends = TrendsDefinition(events: try object.selectors("events", required: true))
            if let interval = try object.string("interval") {
                guard let parsed = ReportInterval(rawValue: interval) else {
                    throw ReportError(.invalidValue, path: path + ".interval", "hour, day, week or month")
                }
                trends.interval = parsed
            }
            if let measure = try object.string("measure") {
                do throws(ReportError) { trends.measure = try ReportMeasure(measure) } catch {
                    throw ReportError(error.code, path: path + ".measure", error.message)
                }
            }
            if let breakdown = try object.breakdown() {
                trends.breakdown = breakdown.field
                trends.top = breakdown.top ?? trends.top
            }
            trends.compare = try object.bool("compare") ?? false
            report = Report(.trends(trends))
        case "breakdown":
            guard let breakdown = try object.breakdown() else {
                throw ReportError(.missing, path: path + ".breakdown", "required: {\"field\": …}")
            }
            let event =
                object["event"] == nil || object["event"] == .null
                ? EventSelector(names: []) : try object.selector("event")
            report = Report(.breakdown(BreakdownDefinition(event: event, field: breakdown.field, top: breakdown.top)))
        case "funnel":
            report = Report(.funnel(try object.funnel()))
        case "retention":
            report = Report(.retention(try object.retention()))
        case "actors":
            report = Report(.actors(try object.actorsTarget()))
        default:
            throw ReportError(
                .invalidValue,
                path: path + ".kind",
                "unknown report kind \(kind.debugDescription): trends, breakdown, funnel, retention or actors"
            )
        }
        report.title = try object.string("title")
        if let range = object["range"] { report.range = try Self.range(range, path: path + ".range") }
        if let zone = try object.string("time_zone") {
            do throws(ReportError) { report.zone = try ReportZone(zone) } catch {
                throw ReportError(error.code, path: path + ".time_zone", error.message)
            }
        }
        report.filters = try object.filters("filters")
        if let feature = try object.string("feature") {
            report.filters.append(try ReportFilter(field: .feature, op: .equals, values: [feature]))
        }
        report.mergeIdentities = try object.bool("merge_identities") ?? true
        do throws(ReportError) { try report.validate() } catch {
            throw ReportError(error.code, path: path + "." + error.path, error.message)
        }
        return report
    }

    static func range(_ value: JSONValue, path: String) throws(ReportError) -> ReportRange {
        let object = try Object(value, path: path)
        var range = ReportRange()
        for key in ["since", "until"] {
            guard let text = try object.string(key) else { continue }
            guard let end = ReportRange.parseEnd(text) else {
                throw ReportError(.invalidValue, path: path + "." + key, "RFC 3339 or a date (2026-11-01)")
            }
            if key == "since" { range.since = end } else { range.until = end }
        }
        if let last = try object.string("last") {
            guard range.since == nil else {
                throw ReportError(.invalidValue, path: path + ".last", "give since or last, not both")
            }
            guard let duration = ReportRange.parseDuration(last) else {
                throw ReportError(.invalidValue, path: path + ".last", "a duration such as 30d, 12h or 2w")
            }
            range.last = duration
        }
        if range.since == nil, range.last == nil { range.last = ReportRange.lastThirtyDays.last }
        return range
    }
}
