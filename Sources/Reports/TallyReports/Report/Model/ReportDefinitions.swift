/// A trends report's own part (docs/reports.md, Trends).
package struct TrendsDefinition: Sendable, Hashable {
    package var events: [EventSelector]
    package var interval: ReportInterval = .day
    package var measure: ReportMeasure = .count
    package var breakdown: ReportField?
    package var top = 10
    package var compare = false

    package init(events: [EventSelector]) {
        self.events = events
    }
}

/// A breakdown report's own part.
package struct BreakdownDefinition: Sendable, Hashable {
    package var event: EventSelector
    package var field: ReportField
    /// Rows kept before `(other)`; nil keeps every value.
    package var top: Int?

    package init(event: EventSelector, field: ReportField, top: Int? = nil) {
        self.event = event
        self.field = field
        self.top = top
    }
}

/// A funnel's own part (docs/reports.md, Funnels).
package struct FunnelDefinition: Sendable, Hashable {
    package enum Order: String, Sendable, Hashable, CaseIterable {
        case ordered, strict, unordered
    }

    /// An exclusion: events that cut a chain between two of its steps (1-based, from < to).
    package struct Exclusion: Sendable, Hashable {
        package var event: EventSelector
        package var from: Int
        package var to: Int

        package init(event: EventSelector, from: Int, to: Int) {
            self.event = event
            self.from = from
            self.to = to
        }
    }

    package static let stepLimits = 2...10
    /// A day, unless a funnel says otherwise.
    package static let defaultWindow: Int64 = 86_400_000_000_000

    package var steps: [EventSelector]
    /// In nanoseconds, above zero.
    package var window: Int64
    package var order: Order = .ordered
    package var exclusions: [Exclusion] = []
    package var breakdown: ReportField?
    package var top = 10

    package init(steps: [EventSelector], window: Int64) {
        self.steps = steps
        self.window = window
    }
}

/// A retention report's own part (docs/reports.md, Retention).
package struct RetentionDefinition: Sendable, Hashable {
    package enum CohortMode: String, Sendable, Hashable, CaseIterable {
        case firstTime = "first-time"
        case recurring
    }

    package static let periodLimits = 1...366

    package var start: EventSelector
    package var returning: EventSelector
    package var period: ReportInterval = .week
    package var periods = 8
    package var cohortMode: CohortMode = .firstTime

    package init(start: EventSelector, returning: EventSelector) {
        self.start = start
        self.returning = returning
    }
}

/// The drill-down: which number's actors to list.
package enum ActorsTarget: Sendable, Hashable {
    /// Actors that reach funnel step `step` (1-based); with `value`, in that breakdown value's funnel.
    case funnelStep(FunnelDefinition, step: Int, value: String? = nil)
    /// Actors that reach step `step` and not the next.
    case funnelDropped(FunnelDefinition, after: Int, value: String? = nil)
    /// The actors of a retention cell: the cohort starting at `cohort` (a bucket name, or any
    /// instant in that period), at `offset` periods.
    case retentionCell(RetentionDefinition, cohort: String, offset: Int)
    /// Actors with an event of the selector whose field has this value (`(none)` for unset).
    case breakdownValue(BreakdownDefinition, value: String)
}
