import TallyCore

/// RFC 3339 `full-date`, `full-time` and `date-time`, on UTF-8 bytes (ASCII digits only).
extension SchemaFormat {
    static func isDate(_ string: String) -> Bool {
        withBytes(string) { isDate($0) }
    }

    static func isTime(_ string: String) -> Bool {
        withBytes(string) { isTime($0) }
    }

    /// `full-date "T" full-time`; the `T` (and the `Z`) may be lowercase, RFC 3339 §5.6 allows it.
    static func isDateTime(_ string: String) -> Bool {
        withBytes(string) { bytes in
            guard bytes.count > 11, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") else {
                return false
            }
            return isDate(bytes[..<10]) && isTime(bytes[11...])
        }
    }

    /// `YYYY-MM-DD`, a real calendar day (leap years included).
    private static func isDate(_ bytes: Bytes) -> Bool {
        guard bytes.count == 10, let year = number(bytes, at: 0, digits: 4), bytes[bytes.startIndex + 4] == dash,
            let month = number(bytes, at: 5, digits: 2), bytes[bytes.startIndex + 7] == dash,
            let day = number(bytes, at: 8, digits: 2)
        else { return false }
        return CivilDate(year: Int64(year), month: Int64(month), day: Int64(day)).isValid
    }

    /// `HH:MM:SS[.fraction](Z|±HH:MM)`. A leap second (`:60`) is only valid at 23:59 UTC.
    private static func isTime(_ bytes: Bytes) -> Bool {
        guard bytes.count >= 9, let hour = number(bytes, at: 0, digits: 2), bytes[bytes.startIndex + 2] == colon,
            let minute = number(bytes, at: 3, digits: 2), bytes[bytes.startIndex + 5] == colon,
            let second = number(bytes, at: 6, digits: 2), hour < 24, minute < 60, second <= 60
        else { return false }
        var index = bytes.startIndex + 8
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < bytes.endIndex, isDigit(bytes[index]) { index += 1 }
            guard index > fractionStart, index < bytes.endIndex else { return false }
        }
        var offsetMinutes = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == bytes.endIndex else { return false }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let offset = bytes[(index + 1)...]
            guard offset.count == 5, let offsetHour = number(offset, at: 0, digits: 2),
                offset[offset.startIndex + 2] == colon, let offsetMinute = number(offset, at: 3, digits: 2),
                offsetHour < 24, offsetMinute < 60
            else { return false }
            offsetMinutes = (offsetHour * 60 + offsetMinute) * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
        default:
            return false
        }
        guard second == 60 else { return true }
        let utcMinutes = ((hour * 60 + minute - offsetMinutes) % 1440 + 1440) % 1440
        return utcMinutes == 23 * 60 + 59
    }

    /// The decimal number in `digits` ASCII digits at `offset`, or nil.
    private static func number(_ bytes: Bytes, at offset: Int, digits: Int) -> Int? {
        let start = bytes.startIndex + offset
        guard start + digits <= bytes.endIndex else { return nil }
        var value = 0
        for byte in bytes[start..<(start + digits)] {
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static var dash: UInt8 { UInt8(ascii: "-") }
    private static var colon: UInt8 { UInt8(ascii: ":") }
}
