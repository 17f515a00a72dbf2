package import TallyCore

/// The event preparation chain: every event, in `track()` order, goes through an ordered list of
/// stages before it is written to the outbox (in ``OutboxSink``'s batch write, off the caller's
/// thread). `track()` itself only stamps what must be captured at call time.
///
/// The stages, in order: context fill and super-properties merge, the app's enrichment hooks,
/// sampling, personal data removed or hashed. A stage that returns false drops the event; the drop
/// is counted under the stage's counter (never silent), and the counts reach
/// ``DeliveryStatistics``, ``OutboxState`` and the `outbox_diagnostics` report.
package struct EventPreparation: Sendable {
    /// One step of the chain.
    package struct Stage: Sendable {
        /// A short name for logs.
        package var name: String
        /// Where a drop is counted.
        package var counter: PreparationCounter
        /// Changes the event in place; false drops it.
        package var prepare: @Sendable (inout EventEnvelope) -> Bool

        package init(
            _ name: String,
            counter: PreparationCounter,
            prepare: @escaping @Sendable (inout EventEnvelope) -> Bool
        ) {
            self.name = name
            self.counter = counter
            self.prepare = prepare
        }
    }

    /// What a batch became.
    package struct Outcome: Sendable {
        /// The events kept, in order.
        package var kept: [EventEnvelope]
        /// Drops by counter.
        package var dropped: DiagnosticCounts
    }

    package var stages: [Stage]

    package init(stages: [Stage] = []) {
        self.stages = stages
    }

    /// Runs each event of `batch` through the stages, in order.
    package func prepare(_ batch: [EventEnvelope]) -> Outcome {
        guard !stages.isEmpty else { return Outcome(kept: batch, dropped: DiagnosticCounts()) }
        var kept: [EventEnvelope] = []
        kept.reserveCapacity(batch.count)
        var dropped = DiagnosticCounts()
        // The pipeline keeps the batch (for a retry), so the first edit copies an envelope's
        // storage once; later edits of the same event do not.
        for var event in batch {
            if let counter = run(&event) {
                dropped.add(1, to: counter)
            } else {
                kept.append(event)
            }
        }
        return Outcome(kept: kept, dropped: dropped)
    }

    /// The counter of the stage that dropped `event`, or nil when every stage kept it.
    package func run(_ event: inout EventEnvelope) -> PreparationCounter? {
        for stage in stages where !stage.prepare(&event) {
            return stage.counter
        }
        return nil
    }
}
