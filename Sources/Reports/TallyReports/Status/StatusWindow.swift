package import TallyCore

/// The time window `tally status` looks at: events by `occurred_at`, failed events by when they
/// failed. Open ends are unbounded.
package struct StatusWindow: Sendable, Hashable {
    /// From this time on.
    package var since: Timestamp?
    /// Before this time.
    package var until: Timestamp?

    package init(since: Timestamp? = nil, until: Timestamp? = nil) {
        self.since = since
        self.until = until
    }

    /// Whether `time` is in the window.
    package func contains(_ time: Timestamp) -> Bool {
        if let since, time < since { return false }
        if let until, !(time < until) { return false }
        return true
    }
}
