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
    /// By actor index.
    private var machines: [ActorMachines?] = []
    /// Instead of ``machines``, for ordered funnels without exclusions or breakdown.
    private var flat: FlatOrderedMachines?
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
        if definition.order == .ordered, definition.exclusions.isEmpty, definition.breakdown == nil {
            flat = FlatOrderedMachines(steps: definition.steps.count)
        }
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
        var value: Int32 = -1
        if let field = definition.breakdown, steps & 1 != 0 {
            value = values.index(BreakdownValue.of(field, in: event))
        }
        consume(
            FunnelRecord(
                actor: actors.index(id),
                value: value,
                time: time,
                idHigh: event.eventID.high,
                idLow: event.eventID.low,
                steps: steps,
                exclusions: exclusions
            ),
            sampled: event.sampleRate != nil
        )
    }

    /// The steps and exclusions each event name matches, when names alone decide them (no filter
    /// in the report or a selector, no breakdown, no selector of every name): a store can then
    /// hand over records (``consume(_:sampled:)``) instead of events.
    package var masksByName: [(name: String, steps: UInt16, exclusions: UInt16)]? {
        guard scope.report.filters.isEmpty, definition.breakdown == nil else { return nil }
        let selectors = definition.steps + definition.exclusions.map(\.event)
        guard selectors.allSatisfy({ $0.filters.isEmpty && !$0.names.isEmpty }) else { return nil }
        var masks: [String: (steps: UInt16, exclusions: UInt16)] = [:]
        for (index, step) in definition.steps.enumerated() {
            for name in step.names { masks[name, default: (0, 0)].steps |= 1 << index }
        }
        for (index, exclusion) in definition.exclusions.enumerated() {
            for name in exclusion.event.names { masks[name, default: (0, 0)].exclusions |= 1 << index }
        }
        return masks.keys.sorted().map { ($0, masks[$0]!.steps, masks[$0]!.exclusions) }
    }

    /// The index of a stored actor id (resolved when merging), for ``consume(_:sampled:)``: asked
    /// once per distinct stored id.
    package mutating func actorIndex(stored id: String) -> Int32 {
        // Without merging, distinct stored ids are distinct actors: no lookup needed.
        guard let resolver = scope.resolver else { return actors.add(new: id) }
        return actors.index(resolver.resolve(id))
    }

    /// One event as a record (its actor from ``actorIndex(stored:)``); `sampled`: it carries a
    /// sample rate. Events outside the funnel's time or matching nothing are left out here.
    package mutating func consume(_ record: FunnelRecord, sampled: Bool) {
        guard record.time >= rules.since, record.time - rules.until < definition.window,
            record.steps != 0 || record.exclusions != 0 || definition.order == .strict
        else { return }
        if record.steps != 0, sampled, record.time < rules.until { self.sampled = true }
        records.append(record)
    }

    package mutating func dayFinished(_ day: CivilDate) {
        run()
    }

    /// Runs the gathered records through their actors' machines, in actor and time order: placed
    /// by actor in one counting pass (actor indices are dense), then each actor's few records
    /// sorted by time and event id.
    private mutating func run() {
        guard !records.isEmpty else { return }
        let actorCount = actors.ids.count
        flat?.grow(to: actorCount)
        if flat == nil, machines.count < actorCount {
            machines.append(contentsOf: repeatElement(nil, count: actorCount - machines.count))
        }
        var starts = [Int32](repeating: 0, count: actorCount + 1)
        for record in records { starts[Int(record.actor) + 1] += 1 }
        for index in 1..<starts.count { starts[index] += starts[index - 1] }
        var placed = [FunnelRecord](unsafeUninitializedCapacity: records.count) { buffer, count in
            var next = starts
            for record in records {
                let slot = Int(next[Int(record.actor)])
                (buffer.baseAddress! + slot).initialize(to: record)
                next[Int(record.actor)] += 1
            }
            count = records.count
        }
        records.removeAll(keepingCapacity: true)
        for actor in 0..<actorCount {
            let lower = Int(starts[actor])
            let upper = Int(starts[actor + 1])
            guard lower < upper else { continue }
            if upper - lower > 1 { Self.sortByTime(&placed, lower..<upper) }
            if flat != nil {
                var start = lower
                while start < upper {
                    var end = start + 1
                    while end < upper, placed[end].time == placed[start].time { end += 1 }
                    flat!.take(actor: actor, placed[start..<end], rules: rules)
                    start = end
                }
                continue
            }
            var entry = machines[actor] ?? ActorMachines(total: FunnelMachine(rules: rules))
            machines[actor] = nil  // the entry is mutated alone, not copied
            var start = lower
            while start < upper {
                var end = start + 1
                while end < upper, placed[end].time == placed[start].time { end += 1 }
                let group = placed[start..<end]
                entry.total.take(group, rules: rules)
                if definition.breakdown != nil {
                    for value in Set(group.map(\.value)) where value >= 0 && entry.byValue[value] == nil {
                        entry.byValue[value] = FunnelMachine(rules: rules, value: value)
                    }
                    for value in entry.byValue.keys { entry.byValue[value]!.take(group, rules: rules) }
                }
                start = end
            }
            machines[actor] = entry
        }
    }

    /// One actor's records by time, then event id: an insertion sort, as they mostly come in order.
    private static func sortByTime(_ records: inout [FunnelRecord], _ range: Range<Int>) {
        guard range.count <= 32 else {
            records[range].sort(by: FunnelRecord.precedes)
            return
        }
        for index in range.dropFirst() {
            let record = records[index]
            var position = index
            while position > range.lowerBound, FunnelRecord.precedes(record, records[position - 1]) {
                records[position] = records[position - 1]
                position -= 1
            }
            records[position] = record
        }
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
            if let flat, value == nil {
                let chosen = flat.reached.indices.filter {
                    exactly ? Int(flat.reached[$0]) == step : Int(flat.reached[$0]) >= step
                }.map { Int32($0) }
                return .actors(ActorsResult(actors: actors.sortedIDs(chosen)))
            }
            let reach = self.reach(value: value)
            let chosen = reach.filter { exactly ? $0.value.reached == step : $0.value.reached >= step }.map(\.key)
            return .actors(ActorsResult(actors: actors.sortedIDs(chosen)))
        }
        var result = FunnelResult(
            window: definition.window,
            order: definition.order,
            steps: flat.map { steps(of: $0) } ?? steps(of: machines.compactMap { $0?.total }),
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
        for case let entry? in machines {
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
            var result: [Int32: (reached: Int, reaches: [FunnelMachine.Reach?])] = [:]
            for (actor, entry) in machines.enumerated() {
                if let entry { result[Int32(actor)] = (entry.total.reached, entry.total.reaches) }
            }
            return result
        }
        if value == BreakdownValue.other {
            let ranked = rankedValues()
            return reach(values: Set(ranked.dropFirst(definition.top).map { values.index($0) }))
        }
        return reach(values: [values.index(value)])
    }

    private func reach(values chosen: Set<Int32>) -> [Int32: (reached: Int, reaches: [FunnelMachine.Reach?])] {
        var result: [Int32: (reached: Int, reaches: [FunnelMachine.Reach?])] = [:]
        for (index, entry) in machines.enumerated() {
            guard let entry else { continue }
            let actor = Int32(index)
            let mine = entry.byValue.filter { chosen.contains($0.key) }.map(\.value)
            guard !mine.isEmpty else { continue }
            let merged = FunnelMachine.merged(mine)
            if merged.reached > 0 { result[actor] = merged }
        }
        return result
    }

    private func steps(of flat: FlatOrderedMachines) -> [FunnelResult.Step] {
        var reaching = [Int](repeating: 0, count: definition.steps.count + 1)
        for reached in flat.reached { reaching[Int(reached)] += 1 }
        var steps: [FunnelResult.Step] = []
        var atLeast = 0
        for index in definition.steps.indices.reversed() {
            atLeast += reaching[index + 1]
            let times = index == 0 ? [] : flat.conversionTimes(step: index)
            steps.append(
                FunnelResult.Step(
                    step: index + 1,
                    label: definition.steps[index].label,
                    actors: atLeast,
                    medianFromPrevious: times.isEmpty ? nil : Self.nearestRankMedian(times)
                )
            )
        }
        return steps.reversed()
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
