/// The machines of an ordered funnel without exclusions or breakdown, one per actor, kept in flat
/// arrays: no allocation per actor, a few dozen bytes each (500,000 actors of a 4-step funnel:
/// about 80 MB, where a ``FunnelMachine`` each took over 250 MB). Each step then holds at most
/// one chain (see ``FunnelMachine``), its (start, last); an event alone at its time advances the
/// arrays directly, a group of equal times goes through a ``FunnelMachine`` made from them.
struct FlatOrderedMachines {
    private let steps: Int
    /// Per actor and step (actor × steps + step − 1): the chain's start and last event time, and
    /// the step's first reach (``FunnelMachine/Reach``); `none` where there is none.
    private var chainStart: [Int64] = []
    private var chainLast: [Int64] = []
    private var reachTime: [Int64] = []
    private var reachStart: [Int64] = []
    private var reachPrevious: [Int64] = []
    /// Per actor, the furthest step reached.
    private(set) var reached: [UInt8] = []
    private static let none = Int64.min

    init(steps: Int) {
        self.steps = steps
    }

    /// Makes room for actors up to `count`.
    mutating func grow(to count: Int) {
        guard reached.count < count else { return }
        let more = (count - reached.count) * steps
        for array in [\Self.chainStart, \.chainLast, \.reachTime, \.reachStart, \.reachPrevious] {
            self[keyPath: array].append(contentsOf: repeatElement(Self.none, count: more))
        }
        reached.append(contentsOf: repeatElement(0, count: count - reached.count))
    }

    /// One actor's events of one time (the actor's groups in time order).
    mutating func take(actor: Int, _ group: ArraySlice<FunnelRecord>, rules: FunnelRules) {
        let base = actor * steps
        guard group.count == 1 else {
            var machine = FunnelMachine(
                rules: rules,
                reached: Int(reached[actor]),
                reaches: reaches(actor),
                chains: (0..<steps).map {
                    chainStart[base + $0] == Self.none ? nil : (chainStart[base + $0], chainLast[base + $0])
                }
            )
            machine.take(group, rules: rules)
            reached[actor] = UInt8(machine.reached)
            for (step, reach) in machine.reaches.enumerated() {
                (reachTime[base + step], reachStart[base + step], reachPrevious[base + step]) =
                    reach.map { ($0.time, $0.start, $0.previous) } ?? (Self.none, Self.none, Self.none)
            }
            for (step, chain) in machine.soleChains.enumerated() {
                (chainStart[base + step], chainLast[base + step]) = chain ?? (Self.none, Self.none)
            }
            return
        }
        // As FunnelMachine.takeAlone, on the arrays.
        let event = group[group.startIndex]
        let time = event.time
        for step in 0..<steps
        where chainStart[base + step] != Self.none && time - chainStart[base + step] > rules.window {
            chainStart[base + step] = Self.none
            chainLast[base + step] = Self.none
        }
        let before = Int(reached[actor])
        var step = steps
        while step >= 2 {
            defer { step -= 1 }
            let from = base + step - 2
            guard event.steps & (1 << (step - 1)) != 0, chainStart[from] != Self.none else { continue }
            let (start, last) = (chainStart[from], chainLast[from])
            let slot = base + step - 1
            if step > before {
                if reachTime[slot] == Self.none {
                    (reachTime[slot], reachStart[slot], reachPrevious[slot]) = (time, start, last)
                }
                if step > Int(reached[actor]) { reached[actor] = UInt8(step) }
            }
            // The new chain ends now, the latest end: it beats the step's chain unless that one
            // started later.
            if chainStart[slot] == Self.none || chainStart[slot] <= start {
                (chainStart[slot], chainLast[slot]) = (start, time)
            }
        }
        if event.steps & 1 != 0, time >= rules.since, time < rules.until {
            if before < 1 {
                if reachTime[base] == Self.none {
                    (reachTime[base], reachStart[base], reachPrevious[base]) = (time, time, time)
                }
                if reached[actor] < 1 { reached[actor] = 1 }
            }
            (chainStart[base], chainLast[base]) = (time, time)
        }
    }

    /// The actor's first reach of each step.
    func reaches(_ actor: Int) -> [FunnelMachine.Reach?] {
        let base = actor * steps
        return (0..<steps).map { step in
            reachTime[base + step] == Self.none
                ? nil
                : FunnelMachine.Reach(
                    time: reachTime[base + step],
                    start: reachStart[base + step],
                    previous: reachPrevious[base + step]
                )
        }
    }

    /// Per step (index j − 1), the conversion times of the actors that reached it.
    func conversionTimes(step index: Int) -> [Int64] {
        var times: [Int64] = []
        for actor in reached.indices where Int(reached[actor]) > index {
            let slot = actor * steps + index
            if reachTime[slot] != Self.none { times.append(reachTime[slot] - reachPrevious[slot]) }
        }
        return times
    }
}
