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
