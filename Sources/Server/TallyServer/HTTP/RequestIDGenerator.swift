import TallyCore

/// Request ids: 32 lowercase hex digits (128 bits, the shape of a W3C trace id), a random half
/// fixed for the process and a counter from a random start, so that ids are unique across
/// collectors and cheap to make (no random bytes per request).
///
/// Hummingbird's own id has this layout but writes the random half without its leading zeros, so
/// one process in 16 sent 31-digit ids (one in 256, 30-digit ones); every digit is written here.
package final class RequestIDGenerator: Sendable {
    private let high: UInt64
    private let counter: Locked<UInt64>

    /// A generator with random halves.
    package convenience init() {
        var random = SystemRandomNumberGenerator()
        self.init(high: random.next(), start: random.next())
    }

    /// A generator with the given halves (tests).
    package init(high: UInt64, start: UInt64) {
        self.high = high
        counter = Locked(start)
    }

    /// The next id.
    package func next() -> String {
        let low = counter.withLock { value in
            defer { value &+= 1 }
            return value
        }
        var bytes = [UInt8](repeating: 0, count: 32)
        Self.write(high, into: &bytes, at: 0)
        Self.write(low, into: &bytes, at: 16)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func write(_ value: UInt64, into bytes: inout [UInt8], at offset: Int) {
        let digits: StaticString = "0123456789abcdef"
        digits.withUTF8Buffer { digits in
            for position in 0..<16 {
                bytes[offset + position] = digits[Int((value >> UInt64(60 - 4 * position)) & 0xF)]
            }
        }
    }
}
