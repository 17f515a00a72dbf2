package import TallyCore

/// An evaluation of one report over a store's events: the engine reads what ``needs`` says and
/// hands over each stored event once; ``finish()`` gives the result.
package protocol ReportEvaluation: Sendable {
    /// What to read.
    var needs: EventNeeds { get }
    /// One stored event (each `event_id` once; any order, unless ``dayFinished(_:)`` is called).
    mutating func consume(_ event: EventEnvelope)
    /// Every event of UTC days up to `day` was handed over (engines that read day by day say
    /// so, which lets evaluations that need time order keep only a day in memory).
    mutating func dayFinished(_ day: CivilDate)
    /// The answer.
    mutating func finish() -> ReportResult
}

extension ReportEvaluation {
    package mutating func dayFinished(_ day: CivilDate) {}
}

/// A report's answer, by kind.
package enum ReportResult: Sendable {
    case trends(TrendsResult)
    case breakdown(BreakdownResult)
    case funnel(FunnelResult)
    case retention(RetentionResult)
    case actors(ActorsResult)
}

/// The breakdown name of a field's value: its report text, `(none)` when unset.
package enum BreakdownValue {
    package static let none = "(none)"
    package static let other = "(other)"

    package static func of(_ field: ReportField, in event: EventEnvelope) -> String {
        field.value(in: event)?.reportText ?? none
    }

    /// Byte order, as the docs order values.
    package static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        Array(lhs.utf8).lexicographicallyPrecedes(Array(rhs.utf8))
    }
}
