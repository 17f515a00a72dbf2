/// A proleptic Gregorian calendar date, converted to and from days since the Unix epoch.
///
/// Howard Hinnant's `days_from_civil` / `civil_from_days`: exact for any date, no tables, no
/// Foundation, so formatting and parsing timestamps cost tens of nanoseconds.
package struct CivilDate: Hashable, Sendable {
    package var year: Int64
    /// 1...12
    package var month: Int64
    /// 1...31
    package var day: Int64

    /// Creates a date. No validation: see ``isValid``.
    package init(year: Int64, month: Int64, day: Int64) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1970-01-01.
    package init(daysSinceEpoch days: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days from 1970-01-01 to this date.
    package var daysSinceEpoch: Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Whether the day exists in its month (29 February only in leap years).
    package var isValid: Bool {
        guard (1...12).contains(month), day >= 1 else { return false }
        return day <= Self.daysIn(month: month, year: year)
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `YYYY-MM-DD`.
    package var isoString: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(10)
        appendISO(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    func appendISO(to bytes: inout [UInt8]) {
        appendDigits(year, count: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(month, count: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(day, count: 2, to: &bytes)
    }
}

@inline(__always)
func appendDigits(_ value: Int64, count: Int, to bytes: inout [UInt8]) {
    var divisor: Int64 = 1
    for _ in 1..<count { divisor *= 10 }
    var rest = value
    while divisor > 0 {
        bytes.append(UInt8(truncatingIfNeeded: 48 + (rest / divisor) % 10))
        rest %= divisor
        divisor /= 10
    }
}
