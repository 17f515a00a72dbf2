package import TallySchema

/// A report's events and properties against the tracking plans: a numeric comparison on a
/// property its plan declares non-numeric is an error; an event or property no plan declares is a
/// warning naming where it was looked for.
package enum ReportPlanCheck {
    package struct Finding: Sendable, Hashable, CustomStringConvertible {
        package var isError: Bool
        package var message: String
        package var description: String { (isError ? "error: " : "warning: ") + message }
    }

    package static func check(_ report: Report, registry: SchemaRegistry) -> [Finding] {
        var findings: [Finding] = []
        let selectors = report.selectors
        let allNames = selectors.flatMap(\.names)
        for name in Set(allNames).sorted() where registry.event(name) == nil {
            findings.append(
                Finding(isError: false, message: "no tracking plan declares the event \(name.debugDescription)")
            )
        }
        func checkFilter(_ filter: ReportFilter, names: [String]) {
            guard case .property(let key) = filter.field else { return }
            for name in Set(names).sorted() {
                guard let event = registry.event(name) else { continue }
                let plan = event.file ?? "the plan of \(event.feature)"
                guard let property = event.properties.property(key) else {
                    findings.append(
                        Finding(
                            isError: false,
                            message: "\(plan) declares no property \(key.debugDescription) for \(name)"
                        )
                    )
                    continue
                }
                if filter.op.isNumeric, let types = property.types, types.isDisjoint(with: [.number, .integer]) {
                    findings.append(
                        Finding(
                            isError: true,
                            message: "\(filter): \(plan) declares \(key) of \(name) as "
                                + types.map(\.rawValue).sorted().joined(separator: " or ") + ", not a number"
                        )
                    )
                }
            }
        }
        for filter in report.filters { checkFilter(filter, names: allNames) }
        for selector in selectors {
            for filter in selector.filters { checkFilter(filter, names: selector.names) }
        }
        return findings
    }
}
