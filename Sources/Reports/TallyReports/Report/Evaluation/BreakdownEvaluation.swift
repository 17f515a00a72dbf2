package import TallyCore

/// A breakdown (docs/reports.md, Breakdown): each value of a field with its events, distinct
/// actors and estimated events.
package struct BreakdownEvaluation: ReportEvaluation {
    private let scope: ReportScope
    private let definition: BreakdownDefinition
    private var actors = ActorTable()
    private var rows: [String: MeasureAccumulator] = [:]
    private var total = MeasureAccumulator(.actors)
    private var sampled = false

    package init(scope: ReportScope, definition: BreakdownDefinition) {
        self.scope = scope
        self.definition = definition
    }

    package var needs: EventNeeds {
        EventNeeds(
            from: scope.since,
            to: scope.until,
            names: definition.event.names.isEmpty ? nil : Set(definition.event.names)
        )
    }

    package mutating func consume(_ event: EventEnvelope) {
        guard !(event.occurredAt < scope.since), event.occurredAt < scope.until, scope.passesFilters(event),
            definition.event.matches(event)
        else { return }
        if event.sampleRate != nil { sampled = true }
        let actor = scope.actor(of: event).map { actors.index($0) }
        let value = BreakdownValue.of(definition.field, in: event)
        rows[value, default: MeasureAccumulator(.actors)].add(event, actor: actor)
        total.add(event, actor: actor)
    }

    /// The actors behind one value's row (also past --top), or behind `(other)`.
    package func actors(ofValue value: String) -> [String] {
        guard value == BreakdownValue.other, let top = definition.top else {
            return actors.sortedIDs(rows[value]?.actorSet ?? [])
        }
        var union = Set<Int32>()
        for (_, accumulator) in ranked().dropFirst(top) { union.formUnion(accumulator.actorSet) }
        return actors.sortedIDs(union)
    }

    /// The rows, most events first, then by value.
    private func ranked() -> [(key: String, value: MeasureAccumulator)] {
        rows.sorted { lhs, rhs in
            lhs.value.events != rhs.value.events
                ? lhs.value.events > rhs.value.events : BreakdownValue.precedes(lhs.key, rhs.key)
        }
    }

    package mutating func finish() -> ReportResult {
        var ordered = ranked()
        if let top = definition.top, ordered.count > top {
            var other = ordered[top].value
            for extra in ordered[(top + 1)...] { other.merge(extra.value) }
            ordered = Array(ordered[..<top]) + [(key: BreakdownValue.other, value: other)]
        }
        func row(_ value: String, _ accumulator: MeasureAccumulator) -> BreakdownResult.Row {
            BreakdownResult.Row(
                value: value,
                events: accumulator.events,
                actors: accumulator.actorSet.count,
                estimated: accumulator.estimated
            )
        }
        return .breakdown(
            BreakdownResult(
                field: definition.field,
                rows: ordered.map { row($0.key, $0.value) },
                total: row("total", total),
                sampled: sampled
            )
        )
    }
}

/// What a breakdown answers.
package struct BreakdownResult: Sendable {
    package struct Row: Sendable, Hashable {
        package var value: String
        package var events: Int
        package var actors: Int
        package var estimated: Int
    }

    package var field: ReportField
    package var rows: [Row]
    package var total: Row
    package var sampled: Bool
}
