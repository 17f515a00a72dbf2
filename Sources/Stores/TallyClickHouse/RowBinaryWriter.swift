package import TallyCore

/// Appends values in ClickHouse's RowBinary format: little-endian numbers, strings as a LEB128
/// length and their bytes, `Nullable` as a flag byte (1: NULL) before the value, UUIDs as their two
/// 64-bit halves, each little-endian, the high half first. No escaping, no text parsing on the server.
package struct RowBinaryWriter: Sendable {
    /// The encoded rows.
    package var bytes: [UInt8] = []

    package init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    package mutating func uuid(_ id: EventID) {
        int64(Int64(bitPattern: id.high))
        int64(Int64(bitPattern: id.low))
    }

    package mutating func int64(_ value: Int64) {
        var value = UInt64(bitPattern: value)
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: value))
            value >>= 8
        }
    }

    package mutating func float64(_ value: Double) {
        int64(Int64(bitPattern: value.bitPattern))
    }

    package mutating func uint8(_ value: UInt8) {
        bytes.append(value)
    }

    package mutating func length(_ count: Int) {
        var value = UInt64(count)
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    package mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            length(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    package mutating func string(bytes value: [UInt8]) {
        length(value.count)
        bytes.append(contentsOf: value)
    }

    /// A string written by `body` straight into the buffer (a JSON text), its length before it.
    package mutating func string(_ body: (inout [UInt8]) -> Void) {
        var scratch: [UInt8] = []
        body(&scratch)
        string(bytes: scratch)
    }

    package mutating func strings(_ values: [String]) {
        length(values.count)
        for value in values { string(value) }
    }

    package mutating func nullableString(_ value: String?) {
        guard let value else { return uint8(1) }
        uint8(0)
        string(value)
    }

    package mutating func nullableInt64(_ value: Int64?) {
        guard let value else { return uint8(1) }
        uint8(0)
        int64(value)
    }

    package mutating func nullableFloat64(_ value: Double?) {
        guard let value else { return uint8(1) }
        uint8(0)
        float64(value)
    }

    /// A timestamp as ClickHouse columns hold it: microseconds since 1970 (Int64; every server
    /// version reads it, where `DateTime64` needs 20.1 and later).
    package mutating func micros(_ time: Timestamp) {
        int64(Self.micros(time))
    }

    package mutating func nullableMicros(_ time: Timestamp?) {
        nullableInt64(time.map(Self.micros))
    }

    /// Microseconds since 1970, rounded down (a time before 1970 too).
    package static func micros(_ time: Timestamp) -> Int64 {
        let nanoseconds = time.nanosecondsSinceEpoch
        let (quotient, remainder) = nanoseconds.quotientAndRemainder(dividingBy: 1_000)
        return remainder < 0 ? quotient - 1 : quotient
    }
}

extension RowBinaryWriter {
    /// The UTC day of `time` as a `Date` (days since 1970 in a UInt16; a time before 1970 or after
    /// 2149 is clamped, its exact time stays in its `occurred_at`).
    package mutating func date(_ time: Timestamp) {
        let days = time.utcDate.daysSinceEpoch
        let clamped = UInt16(clamping: max(0, min(Int64(UInt16.max), Int64(days))))
        bytes.append(UInt8(truncatingIfNeeded: clamped))
        bytes.append(UInt8(truncatingIfNeeded: clamped >> 8))
    }
}
