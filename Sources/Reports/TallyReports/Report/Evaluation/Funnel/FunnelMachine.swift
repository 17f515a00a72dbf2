/// One actor's progress through a funnel (docs/reports.md, Funnels), fed its events in time order,
/// a group of equal times at once: the furthest step any chain reaches, and for each step the
/// conversion time of the chain that reached it first.
///
/// Ordered: for each step the chains that reached it, kept as the ones no other beats (a later
/// first event, and for each exclusion a later step-A event; equal starts keep the later
/// previous step); equal times may chain in any order, each event used once. Strict: only the
/// chains that end at the actor's latest event. Unordered: the events of the last window, matched
/// to distinct steps.
package struct FunnelMachine: Sendable {
    struct Chain: Sendable {
        var start: Int64
        var last: Int64
        /// Per exclusion: the time of the chain's step-A event (Int64.min before step A).
        var anchors: [Int64]

        func beats(_ other: Chain) -> Bool {
            guard start >= other.start else { return false }
            for index in anchors.indices where anchors[index] < other.anchors[index] { return false }
            return start > other.start || last >= other.last
        }
    }

    /// Chains by step (index j − 1).
    private var chains: [[Chain]]
    /// Unordered: the recent step events (time, steps).
    private var recent: [(time: Int64, steps: UInt16)] = []
    /// The furthest step reached (0: none).
    package private(set) var reached = 0
    /// Per step (index j − 1), the chain that reached it first: its step-j time, its start and its
    /// previous step's time (docs/reports.md: earliest ej, then latest e1, then latest e(j−1)).
    package private(set) var reaches: [Reach?]

    /// How a step was first reached.
    package struct Reach: Sendable, Hashable {
        package var time: Int64
        package var start: Int64
        package var previous: Int64

        /// Whether this chain is the one the definition picks over `other`.
        package func precedes(_ other: Reach) -> Bool {
            (time, -start, -previous) < (other.time, -other.start, -other.previous)
        }
    }

    /// Per step (index j − 1), the conversion time from the previous step.
    package var times: [Int64?] {
        reaches.enumerated().map { $0.offset == 0 ? nil : $0.element.map { $0.time - $0.previous } }
    }

    /// An actor's furthest reach over several machines (the chains of several breakdown values).
    package static func merged(_ machines: [FunnelMachine]) -> (reached: Int, reaches: [Reach?]) {
        var reached = 0
        var reaches: [Reach?] = machines.first.map { Array(repeating: nil, count: $0.reaches.count) } ?? []
        for machine in machines {
            reached = max(reached, machine.reached)
            for (index, reach) in machine.reaches.enumerated() {
                guard let reach else { continue }
                if reaches[index].map({ reach.precedes($0) }) ?? true { reaches[index] = reach }
            }
        }
        return (reached, reaches)
    }
    /// Only step-1 events with this value start chains (-1: any).
    private let value: Int32

    package init(rules: FunnelRules, value: Int32 = -1) {
        chains = Array(repeating: [], count: rules.steps)
        reaches = Array(repeating: nil, count: rules.steps)
        self.value = value
    }

    /// An ordered machine without exclusions, from its state (``FlatOrderedMachines`` keeps it so):
    /// per step at most one chain, as (start, last).
    init(rules: FunnelRules, reached: Int, reaches: [Reach?], chains: [(start: Int64, last: Int64)?]) {
        self.init(rules: rules)
        self.reached = reached
        self.reaches = reaches
        self.chains = chains.map { $0.map { [Chain(start: $0.start, last: $0.last, anchors: [])] } ?? [] }
    }

    /// Per step, its one chain (ordered funnels without exclusions keep at most one).
    var soleChains: [(start: Int64, last: Int64)?] {
        chains.map { $0.last.map { ($0.start, $0.last) } }
    }

    /// Takes one actor's events of one time, ordered by event id.
    package mutating func take(_ group: ArraySlice<FunnelRecord>, rules: FunnelRules) {
        switch rules.order {
        case .ordered:
            if group.count == 1, rules.exclusions.isEmpty {
                takeAlone(group[group.startIndex], rules: rules)
            } else {
                takeOrdered(group, rules: rules)
            }
        case .strict: for index in group.indices { takeStrict(group[index], rules: rules) }
        case .unordered: takeUnordered(group, rules: rules)
        }
        if rules.order == .strict { settle(rules: rules) }
    }

    private func startsChain(_ record: FunnelRecord, rules: FunnelRules) -> Bool {
        record.steps & 1 != 0 && record.time >= rules.since && record.time < rules.until
            && (value < 0 || record.value == value)
    }

    // MARK: Ordered

    /// A chain made in this group, with how many events of each kind of the group it used.
    private struct Candidate {
        var step: Int
        var chain: Chain
        var previous: Int64
        var used: [Int]
    }

    /// Events of one group that match the same steps and exclusions and carry the same value
    /// are interchangeable: the search counts them instead of trying each.
    private struct Kind {
        var steps: UInt16
        var exclusions: UInt16
        var value: Int32
        var count: Int
    }

    private mutating func takeOrdered(_ group: ArraySlice<FunnelRecord>, rules: FunnelRules) {
        let time = group.first!.time
        // Chains whose window has passed can extend no further.
        for index in chains.indices { chains[index].removeAll { time - $0.start > rules.window } }
        var kinds: [Kind] = []
        for event in group {
            if let index = kinds.firstIndex(where: {
                $0.steps == event.steps && $0.exclusions == event.exclusions && $0.value == event.value
            }) {
                kinds[index].count += 1
            } else {
                kinds.append(Kind(steps: event.steps, exclusions: event.exclusions, value: event.value, count: 1))
            }
        }
        let inRange = time >= rules.since && time < rules.until
        var made: [Candidate] = []
        func extend(from chain: Chain, step: Int, used: [Int]) {
            let next = step + 1
            guard next <= rules.steps else { return }
            for (index, kind) in kinds.enumerated() where used[index] < kind.count {
                guard kind.steps & (1 << (next - 1)) != 0 else { continue }
                if next == 1, !inRange || (value >= 0 && kind.value != value) { continue }
                var grown = next == 1 ? Chain(start: time, last: time, anchors: chain.anchors) : chain
                let previous = next == 1 ? time : chain.last
                grown.last = time
                for (position, exclusion) in rules.exclusions.enumerated() where exclusion.from == next {
                    grown.anchors[position] = time
                }
                var mark = used
                mark[index] += 1
                made.append(Candidate(step: next, chain: grown, previous: previous, used: mark))
                extend(from: grown, step: next, used: mark)
            }
        }
        let none = [Int](repeating: 0, count: kinds.count)
        let fresh = Chain(start: time, last: time, anchors: Array(repeating: .min, count: rules.exclusions.count))
        extend(from: fresh, step: 0, used: none)
        for step in 1..<max(rules.steps, 1) {
            for chain in chains[step - 1] { extend(from: chain, step: step, used: none) }
        }
        recordReach(made, time: time)
        // Exclusion events of this group cut the chains between their steps whose step-A event came
        // before them, unless every such event is one of the chain's own steps.
        var survivors = chains
        for (position, exclusion) in rules.exclusions.enumerated() {
            let cutting = kinds.indices.filter { kinds[$0].exclusions & (1 << position) != 0 }
            guard !cutting.isEmpty else { continue }
            let between = exclusion.from..<exclusion.to
            for step in between { survivors[step - 1].removeAll { $0.anchors[position] < time } }
            made.removeAll { candidate in
                between.contains(candidate.step) && candidate.chain.anchors[position] < time
                    && cutting.contains { candidate.used[$0] < kinds[$0].count }
            }
        }
        chains = survivors
        for candidate in made { insert(candidate.chain, at: candidate.step) }
    }

    /// ``takeOrdered(_:rules:)`` for the common case, without its search: an event alone at its
    /// time, no exclusions. Each step then keeps at most one chain (of two, the later start, or
    /// the later last event, beats the other), so the event can only start a chain at step 1 or
    /// extend the one chain of the step before another; the steps are visited from the last so
    /// that a chain it extends is the one from before it.
    private mutating func takeAlone(_ event: FunnelRecord, rules: FunnelRules) {
        let time = event.time
        for index in chains.indices where !chains[index].isEmpty {
            chains[index].removeAll { time - $0.start > rules.window }
        }
        let before = reached
        var step = rules.steps
        while step >= 2 {
            defer { step -= 1 }
            guard event.steps & (1 << (step - 1)) != 0, let chain = chains[step - 2].first else { continue }
            if step > before {
                if reaches[step - 1] == nil {
                    reaches[step - 1] = Reach(time: time, start: chain.start, previous: chain.last)
                }
                reached = max(reached, step)
            }
            insert(Chain(start: chain.start, last: time, anchors: chain.anchors), at: step)
        }
        if startsChain(event, rules: rules) {
            if before < 1 {
                if reaches[0] == nil { reaches[0] = Reach(time: time, start: time, previous: time) }
                reached = max(reached, 1)
            }
            insert(Chain(start: time, last: time, anchors: []), at: 1)
        }
    }

    private mutating func insert(_ chain: Chain, at step: Int) {
        let index = step - 1
        if chains[index].contains(where: { $0.beats(chain) }) { return }
        chains[index].removeAll { chain.beats($0) }
        chains[index].append(chain)
    }

    /// Steps reached for the first time in this group: their conversion time comes from the chain
    /// with the latest start, then the latest previous step.
    private mutating func recordReach(_ made: [Candidate], time: Int64) {
        var best: [Int: (start: Int64, previous: Int64)] = [:]
        for candidate in made where candidate.step > reached {
            let key = (candidate.chain.start, candidate.previous)
            if let current = best[candidate.step], current >= key { continue }
            best[candidate.step] = key
        }
        for (step, chosen) in best where reaches[step - 1] == nil {
            reaches[step - 1] = Reach(time: time, start: chosen.start, previous: chosen.previous)
        }
        if let furthest = best.keys.max(), furthest > reached { reached = furthest }
    }

    // MARK: Strict

    /// Strict: chains made by the events of the current time so far, waiting for the group's end.
    private var pending: [Candidate] = []
    /// Strict: the chains that end at the latest event.
    private var ending: [[Chain]] = []

    private mutating func takeStrict(_ event: FunnelRecord, rules: FunnelRules) {
        if ending.isEmpty { ending = Array(repeating: [], count: rules.steps) }
        var next: [[Chain]] = Array(repeating: [], count: rules.steps)
        for step in 1...rules.steps where event.steps & (1 << (step - 1)) != 0 {
            if step == 1 {
                guard startsChain(event, rules: rules) else { continue }
                let chain = Chain(start: event.time, last: event.time, anchors: [])
                next[0].append(chain)
                pending.append(Candidate(step: 1, chain: chain, previous: event.time, used: []))
            } else {
                for chain in ending[step - 2] where event.time - chain.start <= rules.window {
                    let grown = Chain(start: chain.start, last: event.time, anchors: [])
                    next[step - 1].append(grown)
                    pending.append(Candidate(step: step, chain: grown, previous: chain.last, used: []))
                }
            }
        }
        ending = next
    }

    private mutating func settle(rules: FunnelRules) {
        guard let time = pending.first?.chain.last else { return }
        recordReach(pending, time: time)
        pending.removeAll()
    }

    // MARK: Unordered

    private mutating func takeUnordered(_ group: ArraySlice<FunnelRecord>, rules: FunnelRules) {
        let time = group.first!.time
        guard time >= rules.since else { return }
        recent.removeAll { time - $0.time > rules.window }
        for event in group where event.steps != 0 { recent.append((event.time, event.steps)) }
        // The earliest of a set must be in the range: a window whose events all come at or after
        // `until` counts nothing (one before it can always replace a matched one).
        guard let earliest = recent.first?.time, earliest < rules.until else { return }
        let matched = Self.maximumMatching(recent.map(\.steps), steps: rules.steps)
        if matched > reached { reached = matched }
    }

    /// The most steps that distinct events can cover (Kuhn's augmenting paths: steps on one side,
    /// events on the other).
    static func maximumMatching(_ events: [UInt16], steps: Int) -> Int {
        var owner = [Int](repeating: -1, count: events.count)  // event → step
        func augment(_ step: Int, _ visited: inout [Bool]) -> Bool {
            for (position, mask) in events.enumerated() where mask & (1 << step) != 0 && !visited[position] {
                visited[position] = true
                if owner[position] < 0 || augment(owner[position], &visited) {
                    owner[position] = step
                    return true
                }
            }
            return false
        }
        var matched = 0
        for step in 0..<steps {
            var visited = [Bool](repeating: false, count: events.count)
            if augment(step, &visited) { matched += 1 }
        }
        return matched
    }
}
