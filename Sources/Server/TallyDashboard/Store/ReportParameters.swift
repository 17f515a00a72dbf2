package import TallyReports

/// A report from a URL's query: the same names as the CLI's options (`step`, `window`, `by`,
/// `where`, `tz`, …), so a page's URL, the API's and `tally report`'s command line say the same.
package struct ReportParameters: Sendable {
    private let values: [String: [String]]

    package init(_ values: [String: [String]]) {
        self.values = values
    }

    package func all(_ name: String) -> [String] { (values[name] ?? []).filter { !$0.isEmpty } }
    package func first(_ name: String) -> String? { all(name).first }

    private func integer(_ name: String, default value: Int) throws(DashboardError) -> Int {
        guard let text = first(name) else { return value }
        guard let number = Int(text) else { throw .badRequest("\(name) \(text.debugDescription): a whole number") }
        return number
    }

    private func selector(_ text: String, _ name: String) throws(DashboardError) -> EventSelector {
        do throws(ReportError) { return try SelectorSyntax.selector(text) } catch {
            throw .badRequest("\(name): \(error.message)")
        }
    }

    private func field(_ name: String) throws(DashboardError) -> ReportField? {
        guard let text = first(name) else { return nil }
        do throws(ReportError) { return try ReportField(text) } catch { throw .badRequest("\(name): \(error.message)") }
    }

    /// The parts every report shares: range, zone, filters, feature, merging.
    package func report(_ body: Report.Body) throws(DashboardError) -> Report {
        var report = Report(body)
        do throws(ReportError) {
            report.zone = try ReportZone(first("tz") ?? "UTC")
            var range = ReportRange()
            for name in ["since", "until"] {
                guard let text = first(name) else { continue }
                guard let end = ReportRange.parseEnd(text) else {
                    throw ReportError(
                        .invalidValue,
                        path: name,
                        "\(text.debugDescription): RFC 3339 or a date (2026-11-01)"
                    )
                }
                if name == "since" { range.since = end } else { range.until = end }
            }
            // The page's form always sends `last`: an explicit start wins over it.
            if let last = first("last"), range.since == nil {
                guard let duration = ReportRange.parseDuration(last) else {
                    throw ReportError(
                        .invalidValue,
                        path: "last",
                        "\(last.debugDescription): a duration such as 30d, 12h or 2w"
                    )
                }
                range.last = duration
            }
            if range.since == nil, range.last == nil { range.last = ReportRange.lastThirtyDays.last }
            report.range = range
            for text in all("where") { report.filters += try SelectorSyntax.filters(text) }
            if let feature = first("feature") {
                report.filters.append(try ReportFilter(field: .feature, op: .equals, values: [feature]))
            }
            report.mergeIdentities = first("merge") != "off"
            _ = try range.resolve(in: report.zone, now: .now())
            try report.validate()
        } catch {
            throw .badRequest(error.description)
        }
        return report
    }

    package func trends() throws(DashboardError) -> Report {
        let events = all("event")
        var trends = TrendsDefinition(
            events: try events.isEmpty
                ? [EventSelector(names: [])]
                : events.map { (text) throws(DashboardError) in try selector(text, "event") }
        )
        if let interval = first("interval") {
            guard let parsed = ReportInterval(rawValue: interval) else {
                throw .badRequest("interval: hour, day, week or month")
            }
            trends.interval = parsed
        }
        do throws(ReportError) { trends.measure = try ReportMeasure(first("measure") ?? "count") } catch {
            throw .badRequest("measure: \(error.message)")
        }
        trends.breakdown = try field("by")
        trends.top = try integer("top", default: 10)
        trends.compare = ["1", "true", "on"].contains(first("compare") ?? "")
        return try report(.trends(trends))
    }

    package func breakdown() throws(DashboardError) -> Report {
        guard let field = try field("by") else { throw .badRequest("by: the field to break down by") }
        let event = try first("event").map { (text) throws(DashboardError) in try selector(text, "event") }
        let top = try first("top").map { _ throws(DashboardError) in try integer("top", default: 10) }
        return try report(
            .breakdown(BreakdownDefinition(event: event ?? EventSelector(names: []), field: field, top: top))
        )
    }

    package func funnelDefinition() throws(DashboardError) -> FunnelDefinition {
        let steps = try all("step").map { (text) throws(DashboardError) in try selector(text, "step") }
        let windowText = first("window") ?? "1d"
        guard let window = ReportRange.parseDuration(windowText) else {
            throw .badRequest("window \(windowText.debugDescription): a duration above zero such as 12h, 1d or 2w")
        }
        var funnel = FunnelDefinition(steps: steps, window: window)
        if let order = first("order") {
            guard let parsed = FunnelDefinition.Order(rawValue: order) else {
                throw .badRequest("order: ordered, strict or unordered")
            }
            funnel.order = parsed
        }
        do throws(ReportError) {
            funnel.exclusions = try all("exclude").map { (text) throws(ReportError) in
                try SelectorSyntax.exclusion(text)
            }
        } catch {
            throw .badRequest("exclude: \(error.message)")
        }
        funnel.breakdown = try field("by")
        funnel.top = try integer("top", default: 10)
        return funnel
    }

    package func funnel() throws(DashboardError) -> Report { try report(.funnel(try funnelDefinition())) }

    package func retentionDefinition() throws(DashboardError) -> RetentionDefinition {
        guard let start = first("start"), let returning = first("return") else {
            throw .badRequest("start and return: the events that start a cohort and that count as a return")
        }
        var retention = RetentionDefinition(
            start: try selector(start, "start"),
            returning: try selector(returning, "return")
        )
        if let period = first("period") {
            guard let parsed = ReportInterval(rawValue: period), parsed != .hour else {
                throw .badRequest("period: day, week or month")
            }
            retention.period = parsed
        }
        retention.periods = try integer("periods", default: 8)
        if let mode = first("cohort_mode") ?? first("cohort-mode") {
            guard let parsed = RetentionDefinition.CohortMode(rawValue: mode.replacingOccurrences(of: "_", with: "-"))
            else {
                throw .badRequest("cohort_mode: first-time or recurring")
            }
            retention.cohortMode = parsed
        }
        return retention
    }

    package func retention() throws(DashboardError) -> Report { try report(.retention(try retentionDefinition())) }

    /// A drill-down: `of=funnel` with `reached` or `dropped_after` (and `value`), `of=retention`
    /// with `cohort` and `offset`, `of=breakdown` with `value`.
    package func actors() throws(DashboardError) -> Report {
        switch first("of") {
        case "funnel":
            let funnel = try funnelDefinition()
            let value = first("value")
            if let reached = first("reached") {
                guard let step = Int(reached) else { throw .badRequest("reached: a step number") }
                return try report(.actors(.funnelStep(funnel, step: step, value: value)))
            }
            guard let dropped = first("dropped_after"), let step = Int(dropped) else {
                throw .badRequest("reached or dropped_after: a step number")
            }
            return try report(.actors(.funnelDropped(funnel, after: step, value: value)))
        case "retention":
            guard let cohort = first("cohort"), let offsetText = first("offset"), let offset = Int(offsetText) else {
                throw .badRequest("cohort and offset: the cell's cohort start and its offset")
            }
            return try report(.actors(.retentionCell(try retentionDefinition(), cohort: cohort, offset: offset)))
        case "breakdown":
            guard let field = try field("by"), let value = first("value") else {
                throw .badRequest("by and value: the breakdown's field and the value whose actors to list")
            }
            let event = try first("event").map { (text) throws(DashboardError) in try selector(text, "event") }
            let top = try first("top").map { _ throws(DashboardError) in try integer("top", default: 10) }
            let definition = BreakdownDefinition(event: event ?? EventSelector(names: []), field: field, top: top)
            return try report(.actors(.breakdownValue(definition, value: value)))
        default:
            throw .badRequest("of: funnel, retention or breakdown")
        }
    }

    /// The report of `kind`.
    package func report(kind: String) throws(DashboardError) -> Report {
        switch kind {
        case "trends": try trends()
        case "breakdown": try breakdown()
        case "funnel": try funnel()
        case "retention": try retention()
        case "actors": try actors()
        default:
            throw DashboardError(
                .notFound,
                "unknown report kind \(kind.debugDescription): trends, breakdown, funnel, retention or actors"
            )
        }
    }
}
