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
        guard time >= rules.since, time - rules.until < definition.window, let id = scope.actor(of: event) else {
            return
        }
        // An event outside the report's filters matches no step, but is still one of the actor's
        // events: in a strict funnel it stands between two steps.
        var steps: UInt16 = 0
        var exclusions: UInt16 = 0
        if scope.passesFilters(event) {
            for (index, step) in definition.steps.enumerated() where step.matches(event) { steps |= 1 << index }
            for (index, exclusion) in definition.exclusions.enumerated() where exclusion.event.matches(event) {
                exclusions |= 1 << index
            }
        }
        guard steps != 0 || exclusions != 0 || definition.order == .strict else { return }
        if steps != 0, event.sampleRate != nil, time < rules.until { sampled = true }
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
            let (step, exactly, value): (Int, Bool, String?)
            switch target {
            case .funnelStep(_, let reached, let chosen): (step, exactly, value) = (reached, false, chosen)
            case .funnelDropped(_, let after, let chosen): (step, exactly, value) = (after, true, chosen)
            default: return .actors(ActorsResult(actors: []))
            }
            let reach = self.reach(value: value)
            let chosen = reach.filter { exactly ? $0.value.reached == step : $0.value.reached >= step }.map(\.key)
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
            let ranked = rankedValues()
            var rows = ranked.prefix(definition.top).map { value in
                FunnelResult.Row(value: value, steps: steps(of: Array(reach(value: value).values)))
            }
            // The values past --top are one more funnel: the chains whose first event has one of them.
            if ranked.count > definition.top {
                let rest = Set(ranked[definition.top...].map { values.index($0) })
                rows.append(
                    FunnelResult.Row(value: BreakdownValue.other, steps: steps(of: Array(reach(values: rest).values)))
                )
            }
            result.breakdown = rows
        }
        return .funnel(result)
    }

    /// The breakdown values, most step-1 actors first, then by bytes.
    private mutating func rankedValues() -> [String] {
        var starters: [Int32: Int] = [:]
        for entry in machines.values {
            for (value, machine) in entry.byValue where machine.reached >= 1 { starters[value, default: 0] += 1 }
        }
        return starters.sorted { lhs, rhs in
            lhs.value != rhs.value
                ? lhs.value > rhs.value : BreakdownValue.precedes(values.id(lhs.key), values.id(rhs.key))
        }.map { values.id($0.key) }
    }

    /// Each actor's reach: in the whole funnel (nil), in one value's funnel, or in some values' funnels.
    private mutating func reach(value: String?) -> [Int32: (reached: Int, reaches: [FunnelMachine.Reach?])] {
        guard let value else {
            return machines.mapValues { ($0.total.reached, $0.total.reaches) }
        }
        if value == BreakdownValue.other {
            let ranked = rankedValues()
            return reach(values: Set(ranked.dropFirst(definition.top).map { values.index($0) }))
        }
        return reach(values: [values.index(value)])
    }

    private func reach(values chosen: Set<Int32>) -> [Int32: (reached: Int, reaches: [FunnelMachine.Reach?])] {
        var result: [Int32: (reached: Int, reaches: [FunnelMachine.Reach?])] = [:]
        for (actor, entry) in machines {
            let mine = entry.byValue.filter { chosen.contains($0.key) }.map(\.value)
            guard !mine.isEmpty else { continue }
            let merged = FunnelMachine.merged(mine)
            if merged.reached > 0 { result[actor] = merged }
        }
        return result
    }

    private func steps(of machines: [FunnelMachine]) -> [FunnelResult.Step] {
        steps(of: machines.map { ($0.reached, $0.reaches) })
    }

    private func steps(of reaches: [(reached: Int, reaches: [FunnelMachine.Reach?])]) -> [FunnelResult.Step] {
        var steps: [FunnelResult.Step] = []
        for (index, selector) in definition.steps.enumerated() {
            let step = index + 1
            let reaching = reaches.filter { $0.reached >= step }
            let times =
                definition.order == .unordered || step == 1
                ? [] : reaching.compactMap { $0.reaches[index].map { $0.time - $0.previous } }
            steps.append(
                FunnelResult.Step(
                    step: step,
                    label: selector.label,
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
