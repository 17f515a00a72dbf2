package import TallyCore

/// `[since, until)` as given: instants, dates (local midnights in the report's zone), or the last
/// duration up to now (docs/reports.md, Events, duplicates and time).
package struct ReportRange: Sendable, Hashable {
    /// An end as written.
    package enum End: Sendable, Hashable {
        case instant(Timestamp)
        /// `YYYY-MM-DD`: midnight of that date in the report's zone.
        case date(year: Int, month: Int, day: Int)
    }

    package var since: End?
    package var until: End?
    /// A duration in nanoseconds back from `until` (else now).
    package var last: Int64?

    package init(since: End? = nil, until: End? = nil, last: Int64? = nil) {
        self.since = since
        self.until = until
        self.last = last
    }

    /// The default: the last 30 days.
    package static let lastThirtyDays = ReportRange(last: 30 * 86_400 * 1_000_000_000)

    /// Parses an end: RFC 3339 or `YYYY-MM-DD`.
    package static func parseEnd(_ text: String) -> End? {
        if let instant = Timestamp(rfc3339: text) { return .instant(instant) }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        let date = CivilDate(year: Int64(year), month: Int64(month), day: Int64(day))
        guard date.isValid else { return nil }
        return .date(year: year, month: month, day: day)
    }

    /// Parses `30d`, `12h`, `2w`: hours, days (24 h) or weeks (7 × 24 h), above zero and at most
    /// ``maximumDuration``.
    package static func parseDuration(_ text: String) -> Int64? {
        guard let unit = text.last, let count = Int64(text.dropLast()), count > 0 else { return nil }
        let hour: Int64 = 3_600_000_000_000
        let scale: Int64
        switch unit {
        case "h": scale = hour
        case "d": scale = 24 * hour
        case "w": scale = 7 * 24 * hour
        default: return nil
        }
        let (duration, overflow) = count.multipliedReportingOverflow(by: scale)
        guard !overflow, duration <= maximumDuration else { return nil }
        return duration
    }

    /// A hundred years: longer ranges and windows run past what 64-bit nanoseconds hold.
    package static let maximumDuration: Int64 = 36_500 * 24 * 3_600_000_000_000

    /// `30d` for a duration of whole days (else hours).
    package static func durationText(_ nanoseconds: Int64) -> String {
        let hour: Int64 = 3_600_000_000_000
        if nanoseconds % (7 * 24 * hour) == 0 { return "\(nanoseconds / (7 * 24 * hour))w" }
        if nanoseconds % (24 * hour) == 0 { return "\(nanoseconds / (24 * hour))d" }
        return "\(nanoseconds / hour)h"
    }

    /// The instants, in `zone`, with `now` for a range that ends now.
    package func resolve(in zone: ReportZone, now: Timestamp) throws(ReportError) -> (
        since: Timestamp, until: Timestamp
    ) {
        func instant(_ end: End) -> Timestamp {
            switch end {
            case .instant(let time): time
            case .date(let year, let month, let day): zone.midnight(year: year, month: month, day: day)
            }
        }
        let end = until.map(instant) ?? now.truncatedToMicroseconds
        let start: Timestamp
        if let since {
            start = instant(since)
        } else {
            start = end.advanced(byNanoseconds: -(last ?? Self.lastThirtyDays.last!))
        }
        guard start < end else {
            throw ReportError(
                .emptyRange,
                path: "range",
                "the range is empty: until (\(end.rfc3339)) is not after since (\(start.rfc3339))"
            )
        }
        return (start, end)
    }
}
