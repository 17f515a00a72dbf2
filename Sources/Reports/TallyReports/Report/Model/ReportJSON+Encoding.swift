package import TallyCore

extension ReportJSON {
    /// The report as a saved report's JSON (what `decode` reads back).
    package static func encode(_ report: Report) -> JSONValue {
        var members: [JSONMember] = []
        func add(_ key: String, _ value: JSONValue) { members.append(JSONMember(key: key, value: value)) }
        add("kind", .string(report.body.kind))
        if let title = report.title { add("title", .string(title)) }
        add("range", range(report.range))
        add("time_zone", .string(report.zone.identifier))
        if !report.filters.isEmpty { add("filters", filters(report.filters)) }
        add("merge_identities", .bool(report.mergeIdentities))
        members += body(report.body)
        return .object(members)
    }

    private static func body(_ body: Report.Body) -> [JSONMember] {
        switch body {
        case .trends(let trends):
            var members = [
                JSONMember(key: "events", value: .array(trends.events.map(selector))),
                JSONMember(key: "interval", value: .string(trends.interval.rawValue)),
                JSONMember(key: "measure", value: .string(trends.measure.description)),
            ]
            if let field = trends.breakdown { members.append(breakdown(field, top: trends.top)) }
            if trends.compare { members.append(JSONMember(key: "compare", value: .bool(true))) }
            return members
        case .breakdown(let definition):
            return [
                JSONMember(key: "event", value: selector(definition.event)),
                breakdown(definition.field, top: definition.top),
            ]
        case .funnel(let funnel): return self.funnel(funnel)
        case .retention(let retention): return self.retention(retention)
        case .actors(let target):
            switch target {
            case .funnelStep(let funnel, let step, let value):
                return [
                    of("funnel", self.funnel(funnel)),
                    select([JSONMember(key: "reached", value: number(step))] + valueMember(value)),
                ]
            case .funnelDropped(let funnel, let step, let value):
                return [
                    of("funnel", self.funnel(funnel)),
                    select([JSONMember(key: "dropped_after", value: number(step))] + valueMember(value)),
                ]
            case .retentionCell(let retention, let cohort, let offset):
                return [
                    of("retention", self.retention(retention)),
                    select([
                        JSONMember(key: "cohort", value: .string(cohort)),
                        JSONMember(key: "offset", value: number(offset)),
                    ]),
                ]
            case .breakdownValue(let definition, let value):
                return [
                    of(
                        "breakdown",
                        [
                            JSONMember(key: "event", value: selector(definition.event)),
                            breakdown(definition.field, top: nil),
                        ]
                    ),
                    select([JSONMember(key: "value", value: .string(value))]),
                ]
            }
        }
    }

    private static func select(_ members: [JSONMember]) -> JSONMember {
        JSONMember(key: "select", value: .object(members))
    }

    private static func valueMember(_ value: String?) -> [JSONMember] {
        value.map { [JSONMember(key: "value", value: .string($0))] } ?? []
    }

    private static func of(_ kind: String, _ members: [JSONMember]) -> JSONMember {
        JSONMember(key: "of", value: .object([JSONMember(key: "kind", value: .string(kind))] + members))
    }

    private static func funnel(_ funnel: FunnelDefinition) -> [JSONMember] {
        var members = [
            JSONMember(key: "steps", value: .array(funnel.steps.map(selector))),
            JSONMember(key: "window", value: .string(ReportRange.durationText(funnel.window))),
            JSONMember(key: "order", value: .string(funnel.order.rawValue)),
        ]
        if !funnel.exclusions.isEmpty {
            members.append(
                JSONMember(
                    key: "exclusions",
                    value: .array(
                        funnel.exclusions.map { exclusion in
                            guard case .object(var fields) = selector(exclusion.event, expanded: true) else {
                                return .null
                            }
                            fields.append(
                                JSONMember(
                                    key: "between",
                                    value: .array([number(exclusion.from), number(exclusion.to)])
                                )
                            )
                            return .object(fields)
                        }
                    )
                )
            )
        }
        if let field = funnel.breakdown { members.append(breakdown(field, top: funnel.top)) }
        return members
    }

    private static func retention(_ retention: RetentionDefinition) -> [JSONMember] {
        [
            JSONMember(key: "start", value: selector(retention.start)),
            JSONMember(key: "return", value: selector(retention.returning)),
            JSONMember(key: "period", value: .string(retention.period.rawValue)),
            JSONMember(key: "periods", value: number(retention.periods)),
            JSONMember(key: "cohort_mode", value: .string(retention.cohortMode.rawValue)),
        ]
    }

    private static func breakdown(_ field: ReportField, top: Int?) -> JSONMember {
        var members = [JSONMember(key: "field", value: .string(field.description))]
        if let top { members.append(JSONMember(key: "top", value: number(top))) }
        return JSONMember(key: "breakdown", value: .object(members))
    }

    private static func selector(_ selector: EventSelector) -> JSONValue { self.selector(selector, expanded: true) }

    private static func selector(_ selector: EventSelector, expanded: Bool) -> JSONValue {
        var members = [JSONMember(key: "events", value: .array(selector.names.map(JSONValue.string)))]
        if !selector.filters.isEmpty { members.append(JSONMember(key: "filters", value: filters(selector.filters))) }
        return .object(members)
    }

    private static func filters(_ filters: [ReportFilter]) -> JSONValue {
        .array(
            filters.map { filter in
                var members = [
                    JSONMember(key: "field", value: .string(filter.field.description)),
                    JSONMember(key: "op", value: .string(filter.op.rawValue)),
                ]
                switch filter.op.arity {
                case .none: break
                case .one: members.append(JSONMember(key: "value", value: .string(filter.values[0])))
                case .list:
                    members.append(JSONMember(key: "values", value: .array(filter.values.map(JSONValue.string))))
                }
                return .object(members)
            }
        )
    }

    private static func range(_ range: ReportRange) -> JSONValue {
        var members: [JSONMember] = []
        func end(_ end: ReportRange.End) -> JSONValue {
            switch end {
            case .instant(let time): .string(time.rfc3339)
            case .date(let year, let month, let day):
                .string(CivilDate(year: Int64(year), month: Int64(month), day: Int64(day)).isoString)
            }
        }
        if let since = range.since { members.append(JSONMember(key: "since", value: end(since))) }
        if let until = range.until { members.append(JSONMember(key: "until", value: end(until))) }
        if range.since == nil, let last = range.last {
            members.append(JSONMember(key: "last", value: .string(ReportRange.durationText(last))))
        }
        return .object(members)
    }

    private static func number(_ value: Int) -> JSONValue { .number(JSONNumber(text: String(value))) }
}
