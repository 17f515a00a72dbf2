package import TallyCore

/// Which events a series, a step or a cohort counts: one or more names, and filters that all hold.
package struct EventSelector: Sendable, Hashable, CustomStringConvertible {
    /// The event names (any of them).
    package var names: [String]
    /// Filters on top of the report's.
    package var filters: [ReportFilter]

    package init(names: [String], filters: [ReportFilter] = []) {
        self.names = names
        self.filters = filters
    }

    /// Whether `event` is one of these (any name when `names` is empty).
    package func matches(_ event: EventEnvelope) -> Bool {
        (names.isEmpty || names.contains(event.name)) && filters.allSatisfy { $0.matches(event) }
    }

    /// How outputs name it: the names joined by `|` (a trend's series, a funnel's step).
    package var label: String { names.joined(separator: "|") }

    /// `player_opened|episode_detail_play_tapped where position < 3`.
    package var description: String {
        let names = self.names.map { name in
            name.contains(where: { $0.isWhitespace || $0 == "|" || $0 == "'" }) || name == "where"
                ? "'" + name.replacingOccurrences(of: "'", with: "''") + "'" : name
        }.joined(separator: "|")
        return filters.isEmpty ? names : names + " where " + filters.map(\.description).joined(separator: " and ")
    }
}
