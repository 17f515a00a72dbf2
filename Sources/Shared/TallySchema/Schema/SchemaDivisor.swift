import TallyCore

/// A `multipleOf` divisor, checked exactly on the decimal text of the number.
///
/// Doubles get this wrong both ways: `0.3 / 0.1` is not an integer in binary floating point, and
/// `1e308 / 0.123456789` overflows to infinity. Written numbers are decimals, so divisibility is
/// decided on their digits: with `value = v × 10^e` and `divisor = d × 10^f` (`v`, `d` integers
/// without trailing zeros), the value is a multiple when `d` divides `v × 10^(e−f)`. That needs
/// only `v mod m` for an `m` no larger than `d`, whatever the exponents.
struct SchemaDivisor: Sendable, Hashable {
    /// The divisor's significant digits as an integer (`0.015` → 15).
    let significand: UInt64
    /// The divisor is `significand × 10^exponent`.
    let exponent: Int
    /// How many times 2 and 5 divide ``significand``.
    private let twos: Int
    private let fives: Int
    /// The divisor as written, for messages.
    let text: String

    /// Significands up to 18 digits keep `remainder × 10 + 9` within `UInt64`.
    static let maximumDigits = 18

    /// The divisor `number`, or nil when it is not positive or has more than ``maximumDigits``
    /// significant digits.
    init?(_ number: JSONNumber) {
        guard let decimal = DecimalText(number.text), !decimal.isNegative, !decimal.isZero,
            decimal.digitCount <= Self.maximumDigits
        else { return nil }
        var significand: UInt64 = 0
        decimal.forEachDigit(of: number.text) { significand = significand * 10 + UInt64($0) }
        self.significand = significand
        exponent = decimal.exponent
        var (twos, fives, rest) = (0, 0, significand)
        while rest % 2 == 0 {
            twos += 1
            rest /= 2
        }
        while rest % 5 == 0 {
            fives += 1
            rest /= 5
        }
        self.twos = twos
        self.fives = fives
        text = number.text
    }

    /// Whether `number` is an integer multiple of the divisor.
    func divides(_ number: JSONNumber) -> Bool {
        guard let value = DecimalText(number.text) else { return false }
        if value.isZero { return true }
        let shift = value.exponent - exponent
        // The value's significand has no factor 10 left, so it cannot absorb a larger power of ten.
        guard shift >= 0 else { return false }
        // d | v × 10^k  ⇔  d / gcd(d, 10^k) | v, since what remains of d is coprime to what remains of 10^k.
        var modulus = significand
        for _ in 0..<min(twos, shift) { modulus /= 2 }
        for _ in 0..<min(fives, shift) { modulus /= 5 }
        if modulus == 1 { return true }
        var remainder: UInt64 = 0
        value.forEachDigit(of: number.text) { remainder = (remainder * 10 + UInt64($0)) % modulus }
        return remainder == 0
    }
}

extension SchemaDivisor {
    /// The decimal structure of JSON number text, read without allocating: the value is
    /// `±D × 10^exponent` where `D` is the digits from the first to the last non-zero one.
    struct DecimalText {
        var isNegative = false
        /// How many significant digits `D` has (0 for zero).
        var digitCount = 0
        var exponent = 0
        /// Digits (integer and fraction part together) before the first significant one.
        private var leadingZeros = 0

        var isZero: Bool { digitCount == 0 }

        /// Exponents beyond this are clamped: they only decide "a multiple" or "not a multiple".
        private static let exponentLimit = 1_000_000_000

        /// Reads `text`, or nil when it is not a JSON number.
        init?(_ text: String) {
            var digits = 0
            var fractionDigits = 0
            var lastNonZero = -1
            var firstNonZero = -1
            var explicitExponent = 0
            var exponentNegative = false
            var state = 0  // 0 sign/integer, 1 fraction, 2 exponent sign, 3 exponent digits
            var index = 0
            for byte in text.utf8 {
                defer { index += 1 }
                switch byte {
                case UInt8(ascii: "-") where index == 0: isNegative = true
                case UInt8(ascii: "-") where state == 2: exponentNegative = true
                case UInt8(ascii: "+") where state == 2: break
                case UInt8(ascii: "."):
                    guard state == 0, digits > 0 else { return nil }
                    state = 1
                case UInt8(ascii: "e"), UInt8(ascii: "E"):
                    guard state < 2, digits > 0 else { return nil }
                    state = 2
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    let digit = Int(byte - UInt8(ascii: "0"))
                    if state >= 2 {
                        state = 3
                        explicitExponent = min(explicitExponent * 10 + digit, Self.exponentLimit)
                        continue
                    }
                    if digit != 0 {
                        if firstNonZero < 0 { firstNonZero = digits }
                        lastNonZero = digits
                    }
                    digits += 1
                    if state == 1 { fractionDigits += 1 }
                default:
                    return nil
                }
            }
            guard digits > 0, state != 2 else { return nil }
            guard firstNonZero >= 0 else { return }
            leadingZeros = firstNonZero
            digitCount = lastNonZero - firstNonZero + 1
            let trailingZeros = digits - 1 - lastNonZero
            exponent = (exponentNegative ? -explicitExponent : explicitExponent) - fractionDigits + trailingZeros
        }

        /// Calls `body` with each significant digit of `text` (the text this was read from), in order.
        func forEachDigit(of text: String, _ body: (UInt8) -> Void) {
            var seen = 0
            var emitted = 0
            for byte in text.utf8 {
                if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { break }
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { continue }
                defer { seen += 1 }
                guard seen >= leadingZeros else { continue }
                body(byte - UInt8(ascii: "0"))
                emitted += 1
                if emitted == digitCount { break }
            }
        }
    }
}
