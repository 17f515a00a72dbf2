import TallyCore

/// A report as a value: what to count and over what (docs/reports.md). The CLI, saved report
/// files and the dashboard make one; every store evaluates it to the same answer.
package struct Report: Sendable, Hashable {
    /// The kind and its own part.
    package enum Body: Sendable, Hashable {
        case trends(TrendsDefinition)
        case breakdown(BreakdownDefinition)
        case funnel(FunnelDefinition)
        case retention(RetentionDefinition)
        case actors(ActorsTarget)

        /// `trends`, `breakdown`, `funnel`, `retention` or `actors`.
        package var kind: String {
            switch self {
            case .trends: "trends"
            case .breakdown: "breakdown"
            case .funnel: "funnel"
            case .retention: "retention"
            case .actors: "actors"
            }
        }
    }

    package var title: String?
    package var body: Body
    package var range: ReportRange = .lastThirtyDays
    package var zone: ReportZone = .utc
    /// Filters every event counted must match.
    package var filters: [ReportFilter] = []
    /// Identity merging (docs/reports.md, Actors and identity merging).
    package var mergeIdentities = true

    package init(_ body: Body) {
        self.body = body
    }

    /// Every event selector of the report: series, steps, exclusions, start and return events.
    package var selectors: [EventSelector] {
        switch body {
        case .trends(let trends): trends.events
        case .breakdown(let breakdown): [breakdown.event]
        case .funnel(let funnel): funnel.steps + funnel.exclusions.map(\.event)
        case .retention(let retention): [retention.start, retention.returning]
        case .actors(let target):
            switch target {
            case .funnelStep(let funnel, _, _), .funnelDropped(let funnel, _, _):
                funnel.steps + funnel.exclusions.map(\.event)
            case .retentionCell(let retention, _, _): [retention.start, retention.returning]
            case .breakdownValue(let breakdown, _): [breakdown.event]
            }
        }
    }

    /// Checks what the types do not: step and period counts, windows, exclusion bounds, limits.
    package func validate() throws(ReportError) {
        // PostgreSQL's text and jsonb cannot hold U+0000, so no stored event has one: refuse it
        // everywhere rather than let each engine meet it (libpq would cut the parameter there).
        func holdsNUL(_ value: JSONValue) -> Bool {
            switch value {
            case .string(let text): text.unicodeScalars.contains("\u{0}")
            case .array(let items): items.contains(where: holdsNUL)
            case .object(let members): members.contains { holdsNUL(.string($0.key)) || holdsNUL($0.value) }
            case .null, .bool, .number: false
            }
        }
        guard !holdsNUL(ReportJSON.encode(self)) else {
            throw ReportError(
                .invalidValue,
                path: "",
                "a name or value holds a NUL character (U+0000), which no event can"
            )
        }
        func positive(_ value: Int, _ path: String) throws(ReportError) {
            guard value > 0 else { throw ReportError(.invalidValue, path: path, "must be 1 or more, not \(value)") }
        }
        func checkFunnel(_ funnel: FunnelDefinition, path: String) throws(ReportError) {
            guard FunnelDefinition.stepLimits.contains(funnel.steps.count) else {
                throw ReportError(
                    .invalidValue,
                    path: path + "steps",
                    "a funnel has 2 to 10 steps, not \(funnel.steps.count)"
                )
            }
            guard funnel.window > 0 else {
                throw ReportError(.invalidValue, path: path + "window", "the window must be above zero")
            }
            if funnel.order == .unordered, funnel.breakdown != nil {
                throw ReportError(
                    .invalidValue,
                    path: path + "breakdown",
                    "an unordered funnel takes no breakdown: its chains have no first step"
                )
            }
            for (index, exclusion) in funnel.exclusions.enumerated() {
                guard funnel.order != .unordered else {
                    throw ReportError(
                        .invalidValue,
                        path: path + "exclusions[\(index)]",
                        "an unordered funnel takes no exclusions: they sit between two steps of an order"
                    )
                }
                guard exclusion.from >= 1, exclusion.from < exclusion.to, exclusion.to <= funnel.steps.count else {
                    throw ReportError(
                        .invalidValue,
                        path: path + "exclusions[\(index)].between",
                        "between A and B needs 1 ≤ A < B ≤ \(funnel.steps.count), not \(exclusion.from) and \(exclusion.to)"
                    )
                }
            }
            try positive(funnel.top, path + "breakdown.top")
            for (index, step) in funnel.steps.enumerated() where step.names.isEmpty {
                throw ReportError(.missing, path: path + "steps[\(index)].events", "a step names at least one event")
            }
        }
        func checkRetention(_ retention: RetentionDefinition, path: String) throws(ReportError) {
            guard RetentionDefinition.periodLimits.contains(retention.periods) else {
                throw ReportError(
                    .invalidValue,
                    path: path + "periods",
                    "1 to 366 periods, not \(retention.periods)"
                )
            }
            guard retention.period != .hour else {
                throw ReportError(.invalidValue, path: path + "period", "a retention period is a day, week or month")
            }
        }
        switch body {
        case .trends(let trends):
            guard !trends.events.isEmpty else { throw ReportError(.missing, path: "events", "name at least one event") }
            try positive(trends.top, "breakdown.top")
        case .breakdown(let breakdown):
            if let top = breakdown.top { try positive(top, "top") }
        case .funnel(let funnel): try checkFunnel(funnel, path: "")
        case .retention(let retention): try checkRetention(retention, path: "")
        case .actors(let target):
            switch target {
            case .funnelStep(let funnel, let step, _):
                try checkFunnel(funnel, path: "")
                guard (1...funnel.steps.count).contains(step) else {
                    throw ReportError(
                        .invalidValue,
                        path: "reached",
                        "step \(step) of a \(funnel.steps.count)-step funnel"
                    )
                }
            case .funnelDropped(let funnel, let step, _):
                try checkFunnel(funnel, path: "")
                guard (1..<funnel.steps.count).contains(step) else {
                    throw ReportError(
                        .invalidValue,
                        path: "dropped_after",
                        "a step before the last of a \(funnel.steps.count)-step funnel, not \(step)"
                    )
                }
            case .retentionCell(let retention, _, let offset):
                try checkRetention(retention, path: "")
                guard (0...retention.periods).contains(offset) else {
                    throw ReportError(.invalidValue, path: "offset", "offset 0 to \(retention.periods), not \(offset)")
                }
            case .breakdownValue: break
            }
        }
    }
}
