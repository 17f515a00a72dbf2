import Foundation
package import TallyCore

/// A report's IANA time zone: local midnights, the buckets of an interval (hours, days, weeks
/// from Monday, months; across clock changes), and bucket names with their offset.
package struct ReportZone: Sendable, Hashable {
    /// The IANA name (`Europe/Paris`).
    package let identifier: String
    private let calendar: Calendar

    package static let utc = try! ReportZone("UTC")

    /// Refuses a name the system's time zone database does not know.
    package init(_ identifier: String) throws(ReportError) {
        guard !identifier.isEmpty, let zone = TimeZone(identifier: identifier) else {
            throw ReportError(
                .unknownTimeZone,
                path: "time_zone",
                "unknown time zone \(identifier.debugDescription): use an IANA name such as UTC or Europe/Paris"
            )
        }
        var calendar = Calendar(identifier: .iso8601)  // weeks from Monday, as ISO 8601
        calendar.timeZone = zone
        self.identifier = identifier
        self.calendar = calendar
    }

    package static func == (lhs: ReportZone, rhs: ReportZone) -> Bool { lhs.identifier == rhs.identifier }
    package func hash(into hasher: inout Hasher) { hasher.combine(identifier) }

    private static func date(_ time: Timestamp) -> Date {
        Date(timeIntervalSince1970: Double(time.secondsSinceEpoch))
            .addingTimeInterval(Double(time.nanosecondOfSecond) / 1e9)
    }

    /// Bucket boundaries fall on whole seconds (zone offsets are whole seconds).
    private static func timestamp(_ date: Date) -> Timestamp {
        Timestamp(secondsSinceEpoch: Int64(date.timeIntervalSince1970.rounded()))
    }

    /// The first instant of that local date.
    package func midnight(year: Int, month: Int, day: Int) -> Timestamp {
        let components = DateComponents(year: year, month: month, day: day, hour: 12)
        let noon = calendar.date(from: components) ?? Date(timeIntervalSince1970: 0)
        return Self.timestamp(calendar.startOfDay(for: noon))
    }

    private func component(_ interval: ReportInterval) -> Calendar.Component {
        switch interval {
        case .hour: .hour
        case .day: .day
        case .week: .weekOfYear
        case .month: .month
        }
    }

    /// The bucket of `interval` that holds `time`: its start and end.
    package func bucket(_ interval: ReportInterval, containing time: Timestamp) -> (start: Timestamp, end: Timestamp) {
        let date = Self.date(time)
        guard let found = calendar.dateInterval(of: component(interval), for: date) else {
            return (time, time.advanced(byNanoseconds: 3_600_000_000_000))
        }
        return (Self.timestamp(found.start), Self.timestamp(found.end))
    }

    /// Boundaries of the buckets from the one holding `since` to the last that starts before
    /// `until`, and then `extra` more: n + 1 instants for n buckets.
    package func boundaries(_ interval: ReportInterval, since: Timestamp, until: Timestamp, extra: Int = 0)
        -> [Timestamp]
    {
        var result = [bucket(interval, containing: since).start]
        var remainingExtra = extra
        while true {
            let next = bucket(interval, containing: result[result.count - 1]).end
            result.append(next)
            if !(next < until) {
                if remainingExtra == 0 { break }
                remainingExtra -= 1
            }
        }
        return result
    }

    /// `2026-03-29T00:00:00+01:00`: the local time to the second (and the microseconds when they
    /// are not zero), with the offset (`+00:00` in UTC).
    package func label(_ time: Timestamp) -> String {
        let offset = Int64(calendar.timeZone.secondsFromGMT(for: Self.date(time)))
        let local = Timestamp(secondsSinceEpoch: time.secondsSinceEpoch + offset)
        let date = local.utcDate
        let secondOfDay = local.secondsSinceEpoch - date.daysSinceEpoch * 86_400
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let sign = offset < 0 ? "-" : "+"
        let magnitude = abs(offset)
        let micros = time.nanosecondOfSecond / 1_000
        let fraction = micros == 0 ? "" : "." + String(String(micros + 1_000_000).dropFirst())
        return "\(date.isoString)T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
            + fraction + "\(sign)\(two(magnitude / 3600)):\(two(magnitude / 60 % 60))"
    }
}

extension Array where Element == Timestamp {
    /// The bucket of `time` among these boundaries (n + 1 of them for n buckets); nil outside.
    package func bucketIndex(of time: Timestamp) -> Int? {
        guard let first, let last, !(time < first), time < last else { return nil }
        var low = 0
        var high = count - 1  // boundaries[low] <= time < boundaries[high]
        while high - low > 1 {
            let middle = (low + high) / 2
            if time < self[middle] { high = middle } else { low = middle }
        }
        return low
    }
}
