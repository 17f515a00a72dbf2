/// Where the preparation chain counts an event a stage dropped: a counter of
/// ``DiagnosticCounts`` (and of the `outbox_diagnostics` report).
package enum PreparationCounter: Sendable, Hashable, CaseIterable {
    /// An enrichment hook dropped it: `dropped_by_hooks`.
    case droppedByHooks
    /// Sampling left it out: `sampled_out`.
    case sampledOut
}

extension DiagnosticCounts {
    /// Adds `count` to the counter a preparation stage drops under.
    package mutating func add(_ count: UInt64, to counter: PreparationCounter) {
        switch counter {
        case .droppedByHooks: droppedByHooks += count
        case .sampledOut: sampledOut += count
        }
    }

    /// The counts of the preparation chain only.
    package var preparationDrops: DiagnosticCounts {
        var counts = DiagnosticCounts()
        counts.droppedByHooks = droppedByHooks
        counts.sampledOut = sampledOut
        return counts
    }
}
