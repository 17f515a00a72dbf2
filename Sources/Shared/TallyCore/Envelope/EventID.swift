/// A 128-bit event identifier in UUID layout, stamped once per event and kept through every retry.
///
/// Tracked events get a UUIDv7 (time-ordered) from ``UUIDv7Generator``. Stored as two integers
/// so that hashing and comparing cost what an `Int` does.
public struct EventID: Hashable, Comparable, Sendable {
    /// The first 8 bytes, big-endian.
    public var high: UInt64
    /// The last 8 bytes, big-endian.
    public var low: UInt64

    /// Creates an id from its two big-endian halves.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The UUID version nibble (7 for tracked events).
    public var version: Int { Int((high >> 12) & 0xF) }

    /// For a UUIDv7, the Unix time in milliseconds it was minted at.
    public var unixMilliseconds: Int64 { Int64(bitPattern: high >> 16) }

    public static func < (lhs: EventID, rhs: EventID) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}

extension EventID: CustomStringConvertible {
    /// The canonical lowercase form `0192f5e4-8c3a-7b21-9f00-1a2b3c4d5e6f`.
    public var description: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(36)
        appendCanonical(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the canonical form to a byte buffer without creating a `String`.
    package func appendCanonical(to bytes: inout [UInt8]) {
        // 36 bytes built on the stack, appended once.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { buffer in
            var position = 0
            for nibble in 0..<32 {
                if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                    buffer[position] = UInt8(ascii: "-")
                    position += 1
                }
                let word = nibble < 16 ? high : low
                let value = UInt8(truncatingIfNeeded: word >> UInt64(60 - (nibble % 16) * 4)) & 0xF
                buffer[position] = value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
                position += 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(buffer))
        }
    }

    /// Parses the canonical 36-character form (either case). Returns `nil` for anything else.
    public init?(_ text: some StringProtocol) {
        var text = String(text)
        guard let parsed = text.withUTF8({ EventID(canonicalBytes: $0) }) else { return nil }
        self = parsed
    }

    /// Parses the canonical form from UTF-8 bytes.
    package init?(canonicalBytes bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 36, bytes[8] == UInt8(ascii: "-"), bytes[13] == UInt8(ascii: "-"),
            bytes[18] == UInt8(ascii: "-"), bytes[23] == UInt8(ascii: "-")
        else { return nil }
        var words: (UInt64, UInt64) = (0, 0)
        var invalid: UInt8 = 0
        var nibbles = 0
        // Read once: each access to the lazily initialized static costs a `swift_once` call, which
        // inside the loop was 1 % of the collector's time.
        let hexValues = Self.hexValues
        for index in 0..<36 where index != 8 && index != 13 && index != 18 && index != 23 {
            let value = hexValues[Int(bytes[index])]
            invalid |= value
            if nibbles < 16 {
                words.0 = words.0 << 4 | UInt64(value & 0xF)
            } else {
                words.1 = words.1 << 4 | UInt64(value & 0xF)
            }
            nibbles += 1
        }
        // Non-hex bytes map to 0x80, so one test at the end covers all 32.
        guard invalid & 0x80 == 0 else { return nil }
        self.init(high: words.0, low: words.1)
    }

    /// The value of a hex digit's byte (either case), or nil.
    @inline(__always)
    package static func hexDigitValue(_ byte: UInt8) -> UInt8? {
        let value = hexValues[Int(byte)]
        return value == 0x80 ? nil : value
    }

    /// Hex digit values by byte; 0x80 marks a byte that is not a hex digit.
    private static let hexValues: [UInt8] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(byte) - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt8(byte) - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt8(byte) - UInt8(ascii: "A") + 10
        default: 0x80
        }
    }
}
