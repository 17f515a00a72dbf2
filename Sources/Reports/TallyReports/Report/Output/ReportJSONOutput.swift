package import TallyCore

/// A report's answer as JSON (docs/reports.md, Output): what `--format json` prints and the
/// dashboard's API returns.
package enum ReportJSONOutput {
    package static func render(_ result: ReportResult, scope: ReportScope, store: String?) -> String {
        JSONWriter.text(value(result, scope: scope, store: store)) + "\n"
    }

    package static func value(_ result: ReportResult, scope: ReportScope, store: String?) -> JSONValue {
        var members: [JSONMember] = []
        func add(_ key: String, _ value: JSONValue) { members.append(JSONMember(key: key, value: value)) }
        if let store { add("store", .string(store)) }
        add("kind", .string(scope.report.body.kind))
        add("since", .string(scope.zone.label(scope.since)))
        add("until", .string(scope.zone.label(scope.until)))
        add("time_zone", .string(scope.zone.identifier))
        add("merge_identities", .bool(scope.report.mergeIdentities))
        add("sampled", .bool(sampled(result)))
        add("report", ReportJSON.encode(scope.report))
        switch result {
        case .trends(let trends):
            add("interval", .string(trends.interval.rawValue))
            add("measure", .string(trends.measure.description))
            add("buckets", .array(trends.buckets.map { .string(scope.zone.label($0)) }))
            add("series", .array(trends.series.map(series)))
        case .breakdown(let breakdown):
            add("field", .string(breakdown.field.description))
            add("rows", .array(breakdown.rows.map { row($0, named: true) }))
            add("total", row(breakdown.total, named: false))
        case .funnel(let funnel):
            add("window_us", integer(Int(funnel.window / 1_000)))
            add("order", .string(funnel.order.rawValue))
            add("steps", steps(funnel.steps))
            if let rows = funnel.breakdown {
                add(
                    "breakdown",
                    .array(
                        rows.map {
                            .object([
                                JSONMember(key: "value", value: .string($0.value)),
                                JSONMember(key: "steps", value: steps($0.steps)),
                            ])
                        }
                    )
                )
            }
        case .retention(let retention):
            add("period", .string(retention.period.rawValue))
            add("periods", integer(retention.periods))
            add("cohort_mode", .string(retention.cohortMode.rawValue))
            add(
                "cohorts",
                .array(
                    retention.cohorts.map { cohort in
                        .object([
                            JSONMember(key: "start", value: .string(scope.zone.label(cohort.start))),
                            JSONMember(key: "size", value: integer(cohort.size)),
                            JSONMember(key: "counts", value: .array(cohort.counts.map { $0.map(integer) ?? .null })),
                            JSONMember(
                                key: "shares",
                                value: .array(cohort.counts.map { $0.map { ratio($0, cohort.size) } ?? .null })
                            ),
                        ])
                    }
                )
            )
        case .actors(let actors):
            add("count", integer(actors.actors.count))
            add("actors", .array(actors.actors.map(JSONValue.string)))
        }
        return .object(members)
    }

    static func sampled(_ result: ReportResult) -> Bool {
        switch result {
        case .trends(let result): result.sampled
        case .breakdown(let result): result.sampled
        case .funnel(let result): result.sampled
        case .retention(let result): result.sampled
        case .actors: false
        }
    }

    private static func series(_ series: TrendsResult.Series) -> JSONValue {
        var members = [
            JSONMember(key: "event", value: .string(series.event)),
            JSONMember(key: "breakdown", value: series.breakdown.map(JSONValue.string) ?? .null),
            JSONMember(key: "values", value: .array(series.values.map(measure))),
            JSONMember(key: "total", value: measure(series.total)),
        ]
        if let used = series.valuesUsed {
            members.append(JSONMember(key: "values_used", value: .array(used.map(integer))))
            members.append(JSONMember(key: "values_used_total", value: integer(series.valuesUsedTotal ?? 0)))
        }
        if let estimated = series.estimated {
            members.append(JSONMember(key: "estimated", value: .array(estimated.map(integer))))
            members.append(JSONMember(key: "estimated_total", value: integer(series.estimatedTotal ?? 0)))
        }
        if let previous = series.previous {
            members.append(JSONMember(key: "previous", value: .array(previous.map(measure))))
            members.append(JSONMember(key: "previous_total", value: measure(series.previousTotal ?? .none)))
        }
        return .object(members)
    }

    private static func row(_ row: BreakdownResult.Row, named: Bool) -> JSONValue {
        var members: [JSONMember] = named ? [JSONMember(key: "value", value: .string(row.value))] : []
        members += [
            JSONMember(key: "events", value: integer(row.events)),
            JSONMember(key: "actors", value: integer(row.actors)),
            JSONMember(key: "estimated", value: integer(row.estimated)),
        ]
        return .object(members)
    }

    private static func steps(_ steps: [FunnelResult.Step]) -> JSONValue {
        let first = steps.first?.actors ?? 0
        return .array(
            steps.enumerated().map { index, step in
                let previous = index == 0 ? step.actors : steps[index - 1].actors
                return .object([
                    JSONMember(key: "step", value: integer(step.step)),
                    JSONMember(key: "label", value: .string(step.label)),
                    JSONMember(key: "actors", value: integer(step.actors)),
                    JSONMember(key: "conversion_from_first", value: ratio(step.actors, first)),
                    JSONMember(
                        key: "conversion_from_previous",
                        value: index == 0 ? .null : ratio(step.actors, previous)
                    ),
                    JSONMember(
                        key: "median_us_from_previous",
                        value: step.medianFromPrevious.map { integer(Int($0 / 1_000)) } ?? .null
                    ),
                ])
            }
        )
    }

    /// count / total, half to even to 4 digits after the point; 0 when total is 0.
    package static func ratioText(_ count: Int, _ total: Int) -> String {
        let value = total == 0 ? ExactDecimal.zero : ExactDecimal(count).divided(by: total, places: 4)
        let text = value.description
        let parts = text.split(separator: ".", maxSplits: 1)
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        return String(parts[0]) + "." + fraction + String(repeating: "0", count: 4 - fraction.count)
    }

    private static func ratio(_ count: Int, _ total: Int) -> JSONValue {
        .number(JSONNumber(text: ratioText(count, total)))
    }

    private static func measure(_ value: MeasureValue) -> JSONValue {
        switch value {
        case .none: .null
        default: .number(JSONNumber(text: value.jsonText))
        }
    }

    private static func integer(_ value: Int) -> JSONValue { .number(JSONNumber(text: String(value))) }
}
