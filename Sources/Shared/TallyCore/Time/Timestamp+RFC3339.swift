extension Timestamp {
    /// RFC 3339 in UTC with microseconds, the form tally writes everywhere:
    /// `2026-11-22T04:42:22.123456Z`. Microseconds match PostgreSQL's `timestamptz` precision.
    package var rfc3339: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(27)
        appendRFC3339(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``rfc3339`` to a byte buffer without creating a `String`.
    package func appendRFC3339(to bytes: inout [UInt8]) {
        let seconds = secondsSinceEpoch
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let date = CivilDate(daysSinceEpoch: days)
        guard (0...9999).contains(date.year) else {
            // Outside four-digit years: the general (rare) path.
            date.appendISO(to: &bytes)
            bytes.append(UInt8(ascii: "T"))
            appendDigits(secondOfDay / 3600, count: 2, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            appendDigits(secondOfDay / 60 % 60, count: 2, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            appendDigits(secondOfDay % 60, count: 2, to: &bytes)
            bytes.append(UInt8(ascii: "."))
            appendDigits(nanosecondOfSecond / 1000, count: 6, to: &bytes)
            bytes.append(UInt8(ascii: "Z"))
            return
        }
        // yyyy-mm-ddThh:mm:ss.ffffffZ: 27 bytes built on the stack, appended once.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 27) { buffer in
            func put(_ value: Int64, at offset: Int, digits: Int) {
                var value = value
                for position in stride(from: offset + digits - 1, through: offset, by: -1) {
                    buffer[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
                    value /= 10
                }
            }
            put(date.year, at: 0, digits: 4)
            buffer[4] = UInt8(ascii: "-")
            put(date.month, at: 5, digits: 2)
            buffer[7] = UInt8(ascii: "-")
            put(date.day, at: 8, digits: 2)
            buffer[10] = UInt8(ascii: "T")
            put(secondOfDay / 3600, at: 11, digits: 2)
            buffer[13] = UInt8(ascii: ":")
            put(secondOfDay / 60 % 60, at: 14, digits: 2)
            buffer[16] = UInt8(ascii: ":")
            put(secondOfDay % 60, at: 17, digits: 2)
            buffer[19] = UInt8(ascii: ".")
            put(nanosecondOfSecond / 1000, at: 20, digits: 6)
            buffer[26] = UInt8(ascii: "Z")
            bytes.append(contentsOf: UnsafeBufferPointer(buffer))
        }
    }

    /// The UTC calendar day this timestamp falls on.
    package var utcDate: CivilDate {
        let seconds = secondsSinceEpoch
        return CivilDate(daysSinceEpoch: seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
    }

    /// Parses an RFC 3339 `date-time`: `2026-11-22T04:42:22Z`, `2026-11-22t06:42:22.5+02:00`.
    ///
    /// Strict: four-digit year, a `T` separator, a zone (`Z` or `±HH:MM`), real calendar dates.
    /// A leap second (`:60`) is accepted and folds into the next second. Fractions beyond
    /// nanoseconds are truncated. Returns `nil` for anything else.
    package init?(rfc3339 text: some StringProtocol) {
        var text = String(text)
        let parsed = text.withUTF8 { Timestamp(rfc3339Bytes: $0) }
        guard let parsed else { return nil }
        self = parsed
    }

    /// ``init(rfc3339:)`` over UTF-8 bytes.
    package init?(rfc3339Bytes bytes: UnsafeBufferPointer<UInt8>) {
        var cursor = RFC3339Cursor(bytes: bytes)
        guard let value = cursor.parseDateTime(), cursor.isAtEnd else { return nil }
        self = value
    }
}

/// A forward-only reader over the bytes of an RFC 3339 timestamp.
private struct RFC3339Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { index == bytes.count }

    @inline(__always)
    mutating func digits(_ count: Int) -> Int64? {
        guard index + count <= bytes.count else { return nil }
        var value: Int64 = 0
        for offset in 0..<count {
            let digit = bytes[index + offset] &- 48
            guard digit < 10 else { return nil }
            value = value * 10 + Int64(digit)
        }
        index += count
        return value
    }

    @inline(__always)
    mutating func expect(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    @inline(__always)
    mutating func expectAny(_ a: UInt8, _ b: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == a || bytes[index] == b else { return false }
        index += 1
        return true
    }

    mutating func parseDateTime() -> Timestamp? {
        guard let year = digits(4), expect(UInt8(ascii: "-")),
            let month = digits(2), expect(UInt8(ascii: "-")),
            let day = digits(2), expectAny(UInt8(ascii: "T"), UInt8(ascii: "t")),
            let hour = digits(2), expect(UInt8(ascii: ":")),
            let minute = digits(2), expect(UInt8(ascii: ":")),
            let second = digits(2)
        else { return nil }
        let date = CivilDate(year: year, month: month, day: day)
        guard date.isValid, hour < 24, minute < 60, second <= 60 else { return nil }

        var nanoseconds: Int64 = 0
        if expect(UInt8(ascii: ".")) {
            var scale: Int64 = 100_000_000
            let start = index
            while index < bytes.count, bytes[index] &- 48 < 10 {
                nanoseconds += Int64(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }

        var offsetSeconds: Int64 = 0
        if expectAny(UInt8(ascii: "Z"), UInt8(ascii: "z")) {
            offsetSeconds = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let offsetHours = digits(2), expect(UInt8(ascii: ":")), let offsetMinutes = digits(2),
                offsetHours < 24, offsetMinutes < 60
            else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }

        let seconds = date.daysSinceEpoch * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        // Nanoseconds since 1970 in 64 bits reach from 1677-09-21 to 2262-04-11: a time outside
        // is refused rather than wrapped around into another century.
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow, case (let total, false) = scaled.addingReportingOverflow(nanoseconds) else { return nil }
        return Timestamp(nanosecondsSinceEpoch: total)
    }
}
