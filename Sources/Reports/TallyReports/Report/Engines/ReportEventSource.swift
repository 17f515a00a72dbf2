package import TallyCore

/// A store as reports read it: its identity links, and its stored events (each once) for an
/// evaluation's needs.
package protocol ReportEventSource: Sendable {
    /// The identify and alias records of the whole store.
    func identities() async throws -> IdentityResolver
    /// Hands every stored event that `needs` asks for (and perhaps more) to `evaluation`.
    func feed(_ needs: EventNeeds, into evaluation: inout any ReportEvaluation) async throws
}

/// Runs reports: the scope, the evaluation of the report's kind, the store's events through it.
package enum ReportRunner {
    package static func run(
        _ report: Report,
        on source: some ReportEventSource,
        now: Timestamp = .now()
    ) async throws -> (scope: ReportScope, result: ReportResult) {
        try report.validate()
        // Event counts and property measures name no actor: a trend of them needs no identities.
        var countsActors = true
        if case .trends(let trends) = report.body, trends.measure != .actors { countsActors = false }
        let identities = report.mergeIdentities && countsActors ? try await source.identities() : nil
        let scope = try ReportScope(report: report, now: now, identities: identities)
        var evaluation: any ReportEvaluation
        var breakdownValue: String?
        switch report.body {
        case .trends(let trends): evaluation = TrendsEvaluation(scope: scope, definition: trends)
        case .breakdown(let breakdown): evaluation = BreakdownEvaluation(scope: scope, definition: breakdown)
        case .funnel(let funnel): evaluation = FunnelEvaluation(scope: scope, definition: funnel)
        case .retention(let retention): evaluation = try RetentionEvaluation(scope: scope, definition: retention)
        case .actors(let target):
            switch target {
            case .funnelStep(let funnel, _, _), .funnelDropped(let funnel, _, _):
                evaluation = FunnelEvaluation(scope: scope, definition: funnel, target: target)
            case .retentionCell(let retention, let cohort, let offset):
                evaluation = try RetentionEvaluation(scope: scope, definition: retention, target: (cohort, offset))
            case .breakdownValue(let breakdown, let value):
                evaluation = BreakdownEvaluation(scope: scope, definition: breakdown)
                breakdownValue = value
            }
        }
        try await source.feed(evaluation.needs, into: &evaluation)
        if let breakdownValue, let breakdown = evaluation as? BreakdownEvaluation {
            return (scope, .actors(ActorsResult(actors: breakdown.actors(ofValue: breakdownValue))))
        }
        return (scope, evaluation.finish())
    }
}
