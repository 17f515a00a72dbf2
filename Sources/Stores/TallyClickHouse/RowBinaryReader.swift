package import TallyCore

/// Reads values in ClickHouse's RowBinary format (see ``RowBinaryWriter``) from a buffer that may
/// end in the middle of a row: every read throws ``Incomplete`` when the bytes run out, and the
/// caller keeps the row's start to try again once more bytes arrived.
package struct RowBinaryReader {
    /// The buffer ran out in the middle of a value.
    package struct Incomplete: Error {}

    package let bytes: [UInt8]
    package var position: Int

    package init(_ bytes: [UInt8], position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    package var isAtEnd: Bool { position >= bytes.count }

    private mutating func take(_ count: Int) throws(Incomplete) -> Range<Int> {
        guard count >= 0, bytes.count - position >= count else { throw Incomplete() }
        defer { position += count }
        return position..<(position + count)
    }

    package mutating func uint8() throws(Incomplete) -> UInt8 {
        bytes[try take(1).lowerBound]
    }

    package mutating func uint64() throws(Incomplete) -> UInt64 {
        let range = try take(8)
        var value: UInt64 = 0
        for index in range.reversed() { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    package mutating func int64() throws(Incomplete) -> Int64 {
        Int64(bitPattern: try uint64())
    }

    package mutating func float64() throws(Incomplete) -> Double {
        Double(bitPattern: try uint64())
    }

    package mutating func uuid() throws(Incomplete) -> EventID {
        let high = try uint64()
        let low = try uint64()
        return EventID(high: high, low: low)
    }

    package mutating func length() throws(Incomplete) -> Int {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try uint8()
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
            if shift > 56 { throw Incomplete() }
        }
        return Int(truncatingIfNeeded: value)
    }

    /// The bytes of a string, as a range of ``bytes``.
    package mutating func stringRange() throws(Incomplete) -> Range<Int> {
        try take(try length())
    }

    package mutating func string() throws(Incomplete) -> String {
        String(decoding: bytes[try stringRange()], as: UTF8.self)
    }

    package mutating func isNull() throws(Incomplete) -> Bool {
        try uint8() != 0
    }

    package mutating func nullableString() throws(Incomplete) -> String? {
        try isNull() ? nil : try string()
    }

    package mutating func nullableStringRange() throws(Incomplete) -> Range<Int>? {
        try isNull() ? nil : try stringRange()
    }

    package mutating func nullableInt64() throws(Incomplete) -> Int64? {
        try isNull() ? nil : try int64()
    }

    package mutating func nullableFloat64() throws(Incomplete) -> Double? {
        try isNull() ? nil : try float64()
    }

    /// A timestamp from microseconds since 1970.
    package mutating func micros() throws(Incomplete) -> Timestamp {
        Timestamp(nanosecondsSinceEpoch: try int64() &* 1_000)
    }
}
