package import TallyCore

/// Funnels (docs/reports.md, Funnels): the actors' events gathered compactly, sorted by actor and
/// time once a day is complete (or at the end), and run through each actor's machines.
package struct FunnelEvaluation: ReportEvaluation {
    private let scope: ReportScope
    private let definition: FunnelDefinition
    private let rules: FunnelRules
    /// What to list instead of counting, for the drill-down.
    private let target: ActorsTarget?
    private var actors = ActorTable()
    private var values = ActorTable()  // breakdown values, interned the same way
    private var records: [FunnelRecord] = []
    private var machines: [Int32: ActorMachines] = [:]
    private var sampled = false

    private struct ActorMachines {
        var total: FunnelMachine
        var byValue: [Int32: FunnelMachine] = [:]
    }

    package init(scope: ReportScope, definition: FunnelDefinition, target: ActorsTarget? = nil) {
        self.scope = scope
        self.definition = definition
        self.target = target
        rules = FunnelRules(
            steps: definition.steps.count,
            window: definition.window,
            order: definition.order,
            exclusions: definition.exclusions.map { ($0.from, $0.to) },
            since: scope.since.nanosecondsSinceEpoch,
            until: scope.until.nanosecondsSinceEpoch
        )
    }

    package var needs: EventNeeds {
        let names = Set(definition.steps.flatMap(\.names) + definition.exclusions.flatMap(\.event.names))
        return EventNeeds(
            from: scope.since,
            to: scope.until.advanced(byNanoseconds: definition.window),
            names: definition.order == .strict ? nil : names
        )
    }

    package mutating func consume(_ event: EventEnvelope) {
        let time = event.occurredAt.nanosecondsSinceEpoch
        guard time >= rules.since, time - rules.until < definition.window, scope.passesFilters(event),
            let id = scope.actor(of: event)
        else { return }
        var steps: UInt16 = 0
        for (index, step) in definition.steps.enumerated() where step.matches(event) { steps |= 1 << index }
        var exclusions: UInt16 = 0
        for (index, exclusion) in definition.exclusions.enumerated() where exclusion.event.matches(event) {
            exclusions |= 1 << index
        }
        guard steps != 0 || exclusions != 0 || definition.order == .strict else { return }
        if steps != 0, event.sampleRate != nil { sampled = true }
        var value: Int32 = -1
        if let field = definition.breakdown, steps & 1 != 0 {
            value = values.index(BreakdownValue.of(field, in: event))
        }
        records.append(
            FunnelRecord(
                actor: actors.index(id),
                value: value,
                time: time,
                idHigh: event.eventID.high,
                idLow: event.eventID.low,
                steps: steps,
                exclusions: exclusions
            )
        )
    }

    package mutating func dayFinished(_ day: CivilDate) {
        run()
    }

    /// Runs the gathered records through their actors' machines, in actor and time order.
    private mutating func run() {
        guard !records.isEmpty else { return }
        records.sort(by: FunnelRecord.precedes)
        var start = records.startIndex
        while start < records.endIndex {
            var end = start + 1
            while end < records.endIndex, records[end].actor == records[start].actor,
                records[end].time == records[start].time
            {
                end += 1
            }
            let group = records[start..<end]
            let actor = records[start].actor
            var entry = machines[actor] ?? ActorMachines(total: FunnelMachine(rules: rules))
            entry.total.take(group, rules: rules)
            if definition.breakdown != nil {
                for value in Set(group.map(\.value)) where value >= 0 && entry.byValue[value] == nil {
                    entry.byValue[value] = FunnelMachine(rules: rules, value: value)
                }
                for value in entry.byValue.keys { entry.byValue[value]!.take(group, rules: rules) }
            }
            machines[actor] = entry
            start = end
        }
        records.removeAll(keepingCapacity: true)
    }

    package mutating func finish() -> ReportResult {
        run()
        if let target {
            let chosen: [Int32]
            switch target {
            case .funnelStep(_, let step): chosen = machines.filter { $0.value.total.reached >= step }.map(\.key)
            case .funnelDropped(_, let step): chosen = machines.filter { $0.value.total.reached == step }.map(\.key)
            default: chosen = []
            }
            return .actors(ActorsResult(actors: actors.sortedIDs(chosen)))
        }
        var result = FunnelResult(
            window: definition.window,
            order: definition.order,
            steps: steps(of: machines.values.map(\.total)),
            breakdown: nil,
            sampled: sampled
        )
        if definition.breakdown != nil {
            var byValue: [Int32: [FunnelMachine]] = [:]
            for entry in machines.values {
                for (value, machine) in entry.byValue { byValue[value, default: []].append(machine) }
            }
            let rows = byValue.map { (value: values.id($0.key), steps: steps(of: $0.value)) }
                .filter { $0.steps[0].actors > 0 }
                .sorted { lhs, rhs in
                    lhs.steps[0].actors != rhs.steps[0].actors
                        ? lhs.steps[0].actors > rhs.steps[0].actors : BreakdownValue.precedes(lhs.value, rhs.value)
                }
            result.breakdown = rows.prefix(definition.top).map { FunnelResult.Row(value: $0.value, steps: $0.steps) }
        }
        return .funnel(result)
    }

    private func steps(of machines: [FunnelMachine]) -> [FunnelResult.Step] {
        var steps: [FunnelResult.Step] = []
        for (index, selector) in definition.steps.enumerated() {
            let step = index + 1
            let reaching = machines.filter { $0.reached >= step }
            let times = definition.order == .unordered || step == 1 ? [] : reaching.compactMap { $0.times[index] }
            steps.append(
                FunnelResult.Step(
                    step: step,
                    label: selector.description,
                    actors: reaching.count,
                    medianFromPrevious: times.isEmpty ? nil : Self.nearestRankMedian(times)
                )
            )
        }
        return steps
    }

    static func nearestRankMedian(_ values: [Int64]) -> Int64 {
        let sorted = values.sorted()
        return sorted[(sorted.count + 1) / 2 - 1]
    }
}

/// What a funnel answers.
package struct FunnelResult: Sendable {
    package struct Step: Sendable, Hashable {
        package var step: Int
        package var label: String
        package var actors: Int
        /// Microseconds... in nanoseconds here; rendered in microseconds.
        package var medianFromPrevious: Int64?
    }

    package struct Row: Sendable {
        package var value: String
        package var steps: [Step]
    }

    package var window: Int64
    package var order: FunnelDefinition.Order
    package var steps: [Step]
    package var breakdown: [Row]?
    package var sampled: Bool
}

/// The drill-down's answer: actor ids, sorted by their bytes.
package struct ActorsResult: Sendable {
    package var actors: [String]
}
