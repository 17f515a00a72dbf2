/// One event of an actor as a funnel sees it: when, which steps and exclusions it matches, and
/// the breakdown value it carries (as a step-1 event).
package struct FunnelRecord: Sendable {
    package var actor: Int32
    /// Index of its breakdown value, -1 without a breakdown.
    package var value: Int32
    package var time: Int64
    package var idHigh: UInt64
    package var idLow: UInt64
    /// Bit j − 1: matches step j.
    package var steps: UInt16
    /// Bit i: matches exclusion i.
    package var exclusions: UInt16

    package init(
        actor: Int32,
        value: Int32,
        time: Int64,
        idHigh: UInt64,
        idLow: UInt64,
        steps: UInt16,
        exclusions: UInt16
    ) {
        self.actor = actor
        self.value = value
        self.time = time
        self.idHigh = idHigh
        self.idLow = idLow
        self.steps = steps
        self.exclusions = exclusions
    }

    /// By actor, time, then event id: the order every machine reads an actor's events in.
    package static func precedes(_ lhs: FunnelRecord, _ rhs: FunnelRecord) -> Bool {
        (lhs.actor, lhs.time, lhs.idHigh, lhs.idLow) < (rhs.actor, rhs.time, rhs.idHigh, rhs.idLow)
    }
}

/// A funnel's rules as the machines use them.
package struct FunnelRules: Sendable {
    package var steps: Int
    package var window: Int64
    package var order: FunnelDefinition.Order
    /// (from, to), 1-based, per exclusion.
    package var exclusions: [(from: Int, to: Int)]
    package var since: Int64
    package var until: Int64
}
