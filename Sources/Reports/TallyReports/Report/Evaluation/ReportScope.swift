package import TallyCore

/// A report made concrete for one run: its range as instants, its zone, how actors resolve, and
/// the events its evaluation reads (which an engine may narrow its reading to).
package struct ReportScope: Sendable {
    package let report: Report
    package let since: Timestamp
    package let until: Timestamp
    package let resolver: IdentityResolver?

    package init(report: Report, now: Timestamp, identities: IdentityResolver?) throws(ReportError) {
        try report.validate()
        (since, until) = try report.range.resolve(in: report.zone, now: now)
        self.report = report
        resolver = report.mergeIdentities ? identities : nil
    }

    package var zone: ReportZone { report.zone }

    /// The event's actor: its user id, else its anonymous id, resolved when merging.
    package func actor(of event: EventEnvelope) -> String? {
        guard let id = event.userID ?? event.anonymousID else { return nil }
        return resolver?.resolve(id) ?? id
    }

    /// Whether `event` passes the report's own filters.
    package func passesFilters(_ event: EventEnvelope) -> Bool {
        report.filters.allSatisfy { $0.matches(event) }
    }
}

/// What an evaluation reads: events whose time is in `[from, to)` (and with `lookbackNames`,
/// those names at any earlier time too), optionally only some names. Engines may read more: the
/// evaluator checks every event it is given.
package struct EventNeeds: Sendable {
    package var from: Timestamp
    package var to: Timestamp
    /// Only these names matter (nil: any name, as strict funnels need every event).
    package var names: Set<String>?
    /// Names read from the beginning of the store (a first-ever start event).
    package var lookbackNames: Set<String> = []
}
