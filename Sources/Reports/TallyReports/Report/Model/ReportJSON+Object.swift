import TallyCore

extension ReportJSON {
    /// A JSON object being read, with its path for errors.
    struct Object {
        let members: [String: JSONValue]
        let path: String

        init(_ value: JSONValue, path: String) throws(ReportError) {
            guard case .object(let list) = value else { throw ReportError(.syntax, path: path, "expected an object") }
            var members: [String: JSONValue] = [:]
            for member in list { members[member.key] = member.value }
            self.members = members
            self.path = path
        }

        subscript(key: String) -> JSONValue? { members[key] }

        func string(_ key: String) throws(ReportError) -> String? {
            guard let value = members[key] else { return nil }
            guard case .string(let text) = value else {
                throw ReportError(.syntax, path: path + "." + key, "expected a string")
            }
            return text
        }

        func bool(_ key: String) throws(ReportError) -> Bool? {
            guard let value = members[key] else { return nil }
            guard case .bool(let flag) = value else {
                throw ReportError(.syntax, path: path + "." + key, "expected true or false")
            }
            return flag
        }

        func int(_ key: String) throws(ReportError) -> Int? {
            guard let value = members[key] else { return nil }
            guard case .number(let number) = value, let integer = Int(number.text) else {
                throw ReportError(.syntax, path: path + "." + key, "expected an integer")
            }
            return integer
        }

        /// A selector: a name, or `{"events": [names], "filters": [...]}`.
        func selector(_ key: String) throws(ReportError) -> EventSelector {
            guard let value = members[key] else {
                throw ReportError(.missing, path: path + "." + key, "required: an event name or {\"events\": […]}")
            }
            return try Self.selector(value, path: path + "." + key)
        }

        static func selector(_ value: JSONValue, path: String) throws(ReportError) -> EventSelector {
            if case .string(let name) = value { return EventSelector(names: [name]) }
            let object = try Object(value, path: path)
            guard case .array(let names)? = object["events"], !names.isEmpty else {
                throw ReportError(.missing, path: path + ".events", "required: a list of event names")
            }
            var list: [String] = []
            for (index, name) in names.enumerated() {
                guard case .string(let text) = name, !text.isEmpty else {
                    throw ReportError(.syntax, path: path + ".events[\(index)]", "expected an event name")
                }
                list.append(text)
            }
            return EventSelector(names: list, filters: try object.filters("filters"))
        }

        func selectors(_ key: String, required: Bool) throws(ReportError) -> [EventSelector] {
            guard case .array(let items)? = members[key] else {
                if members[key] == nil, !required { return [] }
                throw ReportError(.missing, path: path + "." + key, "required: a list of events")
            }
            var selectors: [EventSelector] = []
            for (index, item) in items.enumerated() {
                selectors.append(try Self.selector(item, path: path + ".\(key)[\(index)]"))
            }
            return selectors
        }

        func filters(_ key: String) throws(ReportError) -> [ReportFilter] {
            guard let value = members[key] else { return [] }
            guard case .array(let items) = value else {
                throw ReportError(.syntax, path: path + "." + key, "expected a list of filters")
            }
            var filters: [ReportFilter] = []
            for (index, item) in items.enumerated() {
                let itemPath = path + ".\(key)[\(index)]"
                let object = try Object(item, path: itemPath)
                guard let fieldText = try object.string("field") else {
                    throw ReportError(.missing, path: itemPath + ".field", "required")
                }
                guard let opText = try object.string("op") else {
                    throw ReportError(.missing, path: itemPath + ".op", "required")
                }
                guard let op = ReportFilter.Operator(spelling: opText) else {
                    throw ReportError(
                        .invalidValue,
                        path: itemPath + ".op",
                        "unknown operator \(opText.debugDescription)"
                    )
                }
                var values: [String] = []
                if let value = object["value"] { values.append(try Self.scalar(value, path: itemPath + ".value")) }
                if case .array(let list)? = object["values"] {
                    for (position, value) in list.enumerated() {
                        values.append(try Self.scalar(value, path: itemPath + ".values[\(position)]"))
                    }
                }
                do throws(ReportError) {
                    filters.append(try ReportFilter(field: try ReportField(fieldText), op: op, values: values))
                } catch {
                    throw ReportError(error.code, path: itemPath, error.message)
                }
            }
            return filters
        }

        static func scalar(_ value: JSONValue, path: String) throws(ReportError) -> String {
            switch value {
            case .string(let text): return text
            case .number(let number): return number.text
            case .bool(let flag): return flag ? "true" : "false"
            default: throw ReportError(.syntax, path: path, "expected a string, number or boolean")
            }
        }

        func breakdown() throws(ReportError) -> (field: ReportField, top: Int?)? {
            guard let value = members["breakdown"] else { return nil }
            let object = try Object(value, path: path + ".breakdown")
            guard let text = try object.string("field") else {
                throw ReportError(.missing, path: path + ".breakdown.field", "required")
            }
            do throws(ReportError) {
                return (try ReportField(text), try object.int("top"))
            } catch {
                throw ReportError(error.code, path: path + ".breakdown", error.message)
            }
        }

        func funnel() throws(ReportError) -> FunnelDefinition {
            let steps = try selectors("steps", required: true)
            var window = FunnelDefinition.defaultWindow
            if let windowText = try string("window") {
                guard let parsed = ReportRange.parseDuration(windowText) else {
                    throw ReportError(.invalidValue, path: path + ".window", "a duration above zero (1d, 12h, 2w)")
                }
                window = parsed
            }
            var funnel = FunnelDefinition(steps: steps, window: window)
            if let order = try string("order") {
                guard let parsed = FunnelDefinition.Order(rawValue: order) else {
                    throw ReportError(.invalidValue, path: path + ".order", "ordered, strict or unordered")
                }
                funnel.order = parsed
            }
            if case .array(let items)? = members["exclusions"] {
                for (index, item) in items.enumerated() {
                    let itemPath = path + ".exclusions[\(index)]"
                    let event = try Self.selector(item, path: itemPath)
                    let object = try Object(item, path: itemPath)
                    guard case .array(let between)? = object["between"], between.count == 2,
                        case .number(let from) = between[0], case .number(let to) = between[1],
                        let a = Int(from.text), let b = Int(to.text)
                    else {
                        throw ReportError(.missing, path: itemPath + ".between", "required: [A, B], two step numbers")
                    }
                    funnel.exclusions.append(.init(event: event, from: a, to: b))
                }
            }
            if let breakdown = try breakdown() {
                funnel.breakdown = breakdown.field
                funnel.top = breakdown.top ?? funnel.top
            }
            return funnel
        }

        func retention() throws(ReportError) -> RetentionDefinition {
            var retention = RetentionDefinition(start: try selector("start"), returning: try selector("return"))
            if let period = try string("period") {
                guard let parsed = ReportInterval(rawValue: period) else {
                    throw ReportError(.invalidValue, path: path + ".period", "day, week or month")
                }
                retention.period = parsed
            }
            retention.periods = try int("periods") ?? retention.periods
            if let mode = try string("cohort_mode") {
                guard
                    let parsed = RetentionDefinition.CohortMode(rawValue: mode.replacingOccurrences(of: "_", with: "-"))
                else {
                    throw ReportError(.invalidValue, path: path + ".cohort_mode", "first-time or recurring")
                }
                retention.cohortMode = parsed
            }
            return retention
        }

        func actorsTarget() throws(ReportError) -> ActorsTarget {
            guard let of = members["of"] else {
                throw ReportError(.missing, path: path + ".of", "required: the funnel, retention or breakdown report")
            }
            let inner = try Object(of, path: path + ".of")
            guard let selectValue = members["select"] else {
                throw ReportError(.missing, path: path + ".select", "required: which actors ({\"reached\": K}, …)")
            }
            let select = try Object(selectValue, path: path + ".select")
            switch try inner.string("kind") {
            case "funnel":
                let funnel = try inner.funnel()
                let value = try select.string("value")
                if let step = try select.int("reached") { return .funnelStep(funnel, step: step, value: value) }
                if let step = try select.int("dropped_after") {
                    return .funnelDropped(funnel, after: step, value: value)
                }
                throw ReportError(.missing, path: path + ".select", "required: reached or dropped_after")
            case "retention":
                guard let cohort = try select.string("cohort"), let offset = try select.int("offset") else {
                    throw ReportError(.missing, path: path + ".select", "required: cohort and offset")
                }
                return .retentionCell(try inner.retention(), cohort: cohort, offset: offset)
            case "breakdown":
                guard let breakdown = try inner.breakdown() else {
                    throw ReportError(.missing, path: path + ".of.breakdown", "required")
                }
                guard let value = try select.string("value") else {
                    throw ReportError(.missing, path: path + ".select.value", "required: the breakdown value")
                }
                let event =
                    inner["event"] == nil || inner["event"] == .null
                    ? EventSelector(names: []) : try inner.selector("event")
                return .breakdownValue(BreakdownDefinition(event: event, field: breakdown.field), value: value)
            default:
                throw ReportError(.invalidValue, path: path + ".of.kind", "funnel, retention or breakdown")
            }
        }
    }
}
