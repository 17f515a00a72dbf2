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
    /// By actor index: its first start event's time (nanoseconds; `Int64.max`: none).
    private var firstStart: [Int64] = []
    private var startPeriods: ActorPeriodSets
    private var returnPeriods: ActorPeriodSets
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
        startPeriods = ActorPeriodSets(periods: boundaries.count)
        returnPeriods = ActorPeriodSets(periods: boundaries.count)
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
        let starts = definition.start.matches(event)
        let returns = definition.returning.matches(event)
        guard starts || returns else { return }
        consume(actor: actors.index(id), time: time, starts: starts, returns: returns, sampled: event.sampleRate != nil)
    }

    /// Whether event names alone decide which events start and return (no filter in the report or
    /// the selectors, no selector of every name): a store can then hand over
    /// ``consume(actor:time:starts:returns:sampled:)`` instead of events.
    package var namesDecide: Bool {
        scope.report.filters.isEmpty
            && [definition.start, definition.returning].allSatisfy {
                $0.filters.isEmpty && !$0.names.isEmpty
            }
    }

    /// Whether every period boundary and both ends of the range are UTC midnights: a UTC day then
    /// lies in one period and on one side of each end, so per-day actor sets answer exactly.
    package var alignsWithUTCDays: Bool {
        let day: Int64 = 86_400_000_000_000
        return (boundaries + [scope.since, scope.until]).allSatisfy { $0.nanosecondsSinceEpoch % day == 0 }
    }

    /// A start or return event in the range was sampled.
    package mutating func noteSampled() {
        sampled = true
    }

    /// The start and return names.
    package var names: (start: Set<String>, returning: Set<String>) {
        (Set(definition.start.names), Set(definition.returning.names))
    }

    /// The index of a stored actor id (resolved when merging): asked once per distinct stored id.
    package mutating func actorIndex(stored id: String) -> Int32 {
        // Without merging, distinct stored ids are distinct actors: no lookup needed.
        guard let resolver = scope.resolver else { return actors.add(new: id) }
        return actors.index(resolver.resolve(id))
    }

    /// One event of an actor: whether it is a start event and a return event (by its name and
    /// filters), and whether it was sampled.
    package mutating func consume(actor: Int32, time: Timestamp, starts: Bool, returns matching: Bool, sampled: Bool) {
        guard time < scope.until else { return }
        let inRange = !(time < scope.since)
        let returns = inRange && matching
        guard starts || returns else { return }
        if sampled, inRange { self.sampled = true }
        if starts {
            switch definition.cohortMode {
            case .firstTime:
                let index = Int(actor)
                if firstStart.count <= index {
                    firstStart.append(contentsOf: repeatElement(.max, count: index + 1 - firstStart.count))
                }
                firstStart[index] = min(firstStart[index], time.nanosecondsSinceEpoch)
            case .recurring:
                if inRange, let period = boundaries.bucketIndex(of: time) {
                    startPeriods.insert(period, for: actor)
                }
            }
        }
        if returns, let period = boundaries.bucketIndex(of: time) { returnPeriods.insert(period, for: actor) }
    }

    /// Actors each with a start or return event at `time` (a UTC day's actors, at its midnight):
    /// ``consume(actor:time:starts:returns:sampled:)`` for each, with the period found once.
    package mutating func consume(actors: [Int32], time: Timestamp, starts: Bool, returns matching: Bool) {
        guard time < scope.until else { return }
        let returns = !(time < scope.since) && matching
        let period = boundaries.bucketIndex(of: time)
        if starts {
            switch definition.cohortMode {
            case .firstTime:
                guard let last = actors.max() else { break }
                if firstStart.count <= Int(last) {
                    firstStart.append(contentsOf: repeatElement(.max, count: Int(last) + 1 - firstStart.count))
                }
                let nanoseconds = time.nanosecondsSinceEpoch
                for actor in actors where nanoseconds < firstStart[Int(actor)] { firstStart[Int(actor)] = nanoseconds }
            case .recurring:
                guard !(time < scope.since), let period else { break }
                for actor in actors { startPeriods.insert(period, for: actor) }
            }
        }
        if returns, let period {
            for actor in actors { returnPeriods.insert(period, for: actor) }
        }
    }

    package mutating func finish() -> ReportResult {
        // Each actor's cohorts.
        var members: [[Int32]] = Array(repeating: [], count: cohortCount)
        switch definition.cohortMode {
        case .firstTime:
            for (actor, nanoseconds) in firstStart.enumerated() where nanoseconds != .max {
                let time = Timestamp(nanosecondsSinceEpoch: nanoseconds)
                guard !(time < scope.since), time < scope.until else { continue }
                if let period = boundaries.bucketIndex(of: time), period < cohortCount {
                    members[period].append(Int32(actor))
                }
            }
        case .recurring:
            startPeriods.forEach { actor, period in
                if period < cohortCount { members[period].append(actor) }
            }
        }
        if let target {
            let cohort = members[target.cohort]
            let chosen =
                target.offset == 0
                ? cohort : cohort.filter { returnPeriods.contains(target.cohort + target.offset, for: $0) }
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
                counts.append(members[cohort].filter { returnPeriods.contains(period, for: $0) }.count)
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
