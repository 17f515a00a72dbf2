package import TallyCore

/// Retention (docs/reports.md, Retention): cohorts by first-ever or each period's start event,
/// and the share of each cohort that returns in each later period.
package struct RetentionEvaluation: ReportEvaluation {
    private let scope: ReportScope
    private let definition: RetentionDefinition
    /// Period boundaries: the cohorts' periods, then N more for the last cohorts' returns.
    private let boundaries: [Timestamp]
    /// How many periods are cohorts (those beginning before `until`).
    private let cohortCount: Int
    private let target: (cohort: Int, offset: Int)?
    private var actors = ActorTable()
    private var firstStart: [Int32: Timestamp] = [:]
    private var startPeriods: [Int32: Set<Int>] = [:]
    private var returnPeriods: [Int32: Set<Int>] = [:]
    private var sampled = false

    package init(scope: ReportScope, definition: RetentionDefinition, target: (cohort: String, offset: Int)? = nil)
        throws(ReportError)
    {
        self.scope = scope
        self.definition = definition
        let cohorts = scope.zone.boundaries(definition.period, since: scope.since, until: scope.until)
        cohortCount = cohorts.count - 1
        boundaries = scope.zone.boundaries(
            definition.period,
            since: scope.since,
            until: scope.until,
            extra: definition.periods
        )
        if let target {
            guard let time = ReportRange.parseEnd(target.cohort) else {
                throw ReportError(
                    .invalidValue,
                    path: "cohort",
                    "\(target.cohort.debugDescription): give the cohort's start (RFC 3339 or a date)"
                )
            }
            let instant: Timestamp
            switch time {
            case .instant(let value): instant = value
            case .date(let year, let month, let day): instant = scope.zone.midnight(year: year, month: month, day: day)
            }
            guard let index = cohorts.bucketIndex(of: instant) else {
                throw ReportError(.invalidValue, path: "cohort", "\(target.cohort) is not a cohort of the range")
            }
            self.target = (index, target.offset)
        } else {
            self.target = nil
        }
    }

    package var needs: EventNeeds {
        var needs = EventNeeds(
            from: scope.since,
            to: scope.until,
            names: Set(definition.start.names + definition.returning.names)
        )
        if definition.cohortMode == .firstTime { needs.lookbackNames = Set(definition.start.names) }
        return needs
    }

    package mutating func consume(_ event: EventEnvelope) {
        let time = event.occurredAt
        guard time < scope.until, scope.passesFilters(event), let id = scope.actor(of: event) else { return }
        let inRange = !(time < scope.since)
        let starts = definition.start.matches(event)
        let returns = inRange && definition.returning.matches(event)
        guard starts || returns else { return }
        if event.sampleRate != nil, inRange { sampled = true }
        let actor = actors.index(id)
        if starts {
            switch definition.cohortMode {
            case .firstTime:
                if firstStart[actor].map({ time < $0 }) ?? true { firstStart[actor] = time }
            case .recurring:
                if inRange, let period = boundaries.bucketIndex(of: time) {
                    startPeriods[actor, default: []].insert(period)
                }
            }
        }
        if returns, let period = boundaries.bucketIndex(of: time) { returnPeriods[actor, default: []].insert(period) }
    }

    package mutating func finish() -> ReportResult {
        // Each actor's cohorts.
        var members: [[Int32]] = Array(repeating: [], count: cohortCount)
        switch definition.cohortMode {
        case .firstTime:
            for (actor, time) in firstStart where !(time < scope.since) && time < scope.until {
                if let period = boundaries.bucketIndex(of: time), period < cohortCount { members[period].append(actor) }
            }
        case .recurring:
            for (actor, periods) in startPeriods {
                for period in periods where period < cohortCount { members[period].append(actor) }
            }
        }
        if let target {
            let cohort = members[target.cohort]
            let chosen =
                target.offset == 0
                ? cohort : cohort.filter { returnPeriods[$0]?.contains(target.cohort + target.offset) ?? false }
            return .actors(ActorsResult(actors: actors.sortedIDs(chosen)))
        }
        var result = RetentionResult(
            period: definition.period,
            periods: definition.periods,
            cohortMode: definition.cohortMode,
            cohorts: [],
            sampled: sampled
        )
        for cohort in 0..<cohortCount {
            let size = members[cohort].count
            var counts: [Int?] = [size]
            for offset in 1...definition.periods {
                let period = cohort + offset
                guard scope.until > boundaries[period] else {
                    counts.append(nil)
                    continue
                }
                counts.append(members[cohort].filter { returnPeriods[$0]?.contains(period) ?? false }.count)
            }
            result.cohorts.append(RetentionResult.Cohort(start: boundaries[cohort], size: size, counts: counts))
        }
        return .retention(result)
    }
}

/// What a retention report answers.
package struct RetentionResult: Sendable {
    package struct Cohort: Sendable {
        package var start: Timestamp
        package var size: Int
        /// Offsets 0 … N; nil when that period starts at or after `until`.
        package var counts: [Int?]
    }

    package var period: ReportInterval
    package var periods: Int
    package var cohortMode: RetentionDefinition.CohortMode
    package var cohorts: [Cohort]
    package var sampled: Bool
}
