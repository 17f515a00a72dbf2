/// Reading JSON number text without going through `String` and `strtod` (which cost ~1 µs per
/// number on the ingest path, for the handful of numbers an event carries).
package enum DecimalText {
    /// The integer of `text` when it is a plain integer of at most 18 digits (exact in `Int64`),
    /// other than `-0`; nil for anything else.
    package static func integer(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        let negative = text.first == UInt8(ascii: "-")
        if negative { index = 1 }
        let digits = text.count - index
        guard digits > 0, digits <= 18 else { return nil }
        var value: Int64 = 0
        while index < text.count {
            let digit = text[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value &* 10 &+ Int64(digit)
            index += 1
        }
        if negative {
            guard value != 0 else { return nil }
            return -value
        }
        return value
    }

    /// The double nearest to `text` when it is a plain decimal (`-12.5`, `0.001`, `42`) of at most
    /// 15 significant digits; nil for anything else (an exponent, more digits). Such a mantissa
    /// is exact in a double, as is every power of ten up to 10^22, so one division rounds
    /// correctly (Clinger's fast path): the same double `strtod` gives.
    package static func double(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var inFraction = false
        var index = 0
        let negative = text.first == UInt8(ascii: "-")
        if negative { index = 1 }
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: "."), !inFraction {
                inFraction = true
            } else if byte &- UInt8(ascii: "0") < 10 {
                mantissa = mantissa &* 10 &+ UInt64(byte &- UInt8(ascii: "0"))
                if mantissa != 0 { digits += 1 }
                if inFraction { fractionDigits += 1 }
            } else {
                return nil
            }
            index += 1
        }
        guard digits <= 15, fractionDigits < powersOfTen.count else { return nil }
        let magnitude = Double(mantissa) / powersOfTen[fractionDigits]
        return negative ? -magnitude : magnitude
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { power, _ in power * 10 }
    }
}
