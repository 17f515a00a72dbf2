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
    public func appendCanonical(to bytes: inout [UInt8]) {
        let hex: StaticString = "0123456789abcdef"
        hex.withUTF8Buffer { digits in
            for nibble in 0..<32 {
                if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 { bytes.append(UInt8(ascii: "-")) }
                let word = nibble < 16 ? high : low
                let shift = UInt64(60 - (nibble % 16) * 4)
                bytes.append(digits[Int((word >> shift) & 0xF)])
            }
        }
    }

    /// Parses the canonical 36-character form (either case). Returns `nil` for anything else.
    public init?(_ text: some StringProtocol) {
        var text = String(text)
        guard let parsed = text.withUTF8({ EventID(canonicalBytes: $0) }) else { return nil }
        self = parsed
    }

    /// Parses the canonical form from UTF-8 bytes.
    public init?(canonicalBytes bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 36 else { return nil }
        var words: (UInt64, UInt64) = (0, 0)
        var nibbles = 0
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            let value: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            if nibbles < 16 {
                words.0 = words.0 << 4 | UInt64(value)
            } else {
                words.1 = words.1 << 4 | UInt64(value)
            }
            nibbles += 1
        }
        self.init(high: words.0, low: words.1)
    }
}
