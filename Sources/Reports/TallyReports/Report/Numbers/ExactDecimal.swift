/// A decimal number held exactly, as JSON spells numbers: sums, comparisons and averages of
/// property values without the rounding of binary floating point, so every store gives the same
/// digits (PostgreSQL's `numeric` does the same).
///
/// `digits` (least significant first, no trailing zero digits beyond the last significant one
/// at the low end is normalized away) times 10^`exponent`.
package struct ExactDecimal: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Base-10 digits, least significant first; empty for zero.
    private var digits: [UInt8]
    private var exponent: Int
    private var negative: Bool

    /// Numbers beyond this many decimal digits (before or after the point) are not read: their
    /// plain text would be unbounded.
    package static let maximumDigits = 1_000

    package static let zero = ExactDecimal(digits: [], exponent: 0, negative: false)

    private init(digits: [UInt8], exponent: Int, negative: Bool) {
        self.digits = digits
        self.exponent = exponent
        self.negative = negative
        normalize()
    }

    package init(_ integer: Int) {
        var magnitude = integer.magnitude
        var digits: [UInt8] = []
        while magnitude > 0 {
            digits.append(UInt8(magnitude % 10))
            magnitude /= 10
        }
        self.init(digits: digits, exponent: 0, negative: integer < 0)
    }

    /// Parses JSON number text (`-12.50`, `1e2`, `0.5E-3`); nil for anything else or beyond
    /// ``maximumDigits``.
    package init?(jsonText text: String) {
        var bytes = Array(text.utf8)[...]
        var negative = false
        if bytes.first == UInt8(ascii: "-") {
            negative = true
            bytes = bytes.dropFirst()
        }
        var mantissa: [UInt8] = []  // most significant first
        var fractionLength = 0
        var seenPoint = false
        var seenDigit = false
        while let byte = bytes.first, byte != UInt8(ascii: "e"), byte != UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if byte == UInt8(ascii: ".") {
                guard !seenPoint, seenDigit else { return nil }
                seenPoint = true
                continue
            }
            guard byte >= 48, byte <= 57 else { return nil }
            seenDigit = true
            mantissa.append(byte - 48)
            if seenPoint { fractionLength += 1 }
        }
        guard seenDigit, !seenPoint || fractionLength > 0, mantissa.count <= Self.maximumDigits else { return nil }
        var exponent = -fractionLength
        if !bytes.isEmpty {
            bytes = bytes.dropFirst()
            var exponentNegative = false
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                exponentNegative = sign == UInt8(ascii: "-")
                bytes = bytes.dropFirst()
            }
            guard !bytes.isEmpty, bytes.count <= 6, bytes.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            let value = bytes.reduce(0) { $0 * 10 + Int($1 - 48) }
            exponent += exponentNegative ? -value : value
        }
        self.init(digits: mantissa.reversed(), exponent: exponent, negative: negative)
        guard self.exponent >= -Self.maximumDigits, self.exponent + self.digits.count <= Self.maximumDigits else {
            return nil
        }
    }

    /// Drops zero digits at both ends; zero is never negative.
    private mutating func normalize() {
        var low = 0
        while low < digits.count, digits[low] == 0 { low += 1 }
        if low > 0 {
            digits.removeFirst(low)
            exponent += low
        }
        while let last = digits.last, last == 0 { digits.removeLast() }
        if digits.isEmpty {
            exponent = 0
            negative = false
        }
    }

    package var isZero: Bool { digits.isEmpty }

    /// The digits aligned to `exponent` (which is at most this number's own).
    private func digits(alignedTo target: Int) -> [UInt8] {
        [UInt8](repeating: 0, count: exponent - target) + digits
    }

    private static func compareMagnitudes(_ lhs: ExactDecimal, _ rhs: ExactDecimal) -> Int {
        let lhsTop = lhs.digits.count + lhs.exponent
        let rhsTop = rhs.digits.count + rhs.exponent
        if lhs.isZero || rhs.isZero { return lhs.isZero ? (rhs.isZero ? 0 : -1) : 1 }
        if lhsTop != rhsTop { return lhsTop < rhsTop ? -1 : 1 }
        let low = min(lhs.exponent, rhs.exponent)
        let a = lhs.digits(alignedTo: low)
        let b = rhs.digits(alignedTo: low)
        for index in stride(from: max(a.count, b.count) - 1, through: 0, by: -1) {
            let x = index < a.count ? a[index] : 0
            let y = index < b.count ? b[index] : 0
            if x != y { return x < y ? -1 : 1 }
        }
        return 0
    }

    package static func < (lhs: ExactDecimal, rhs: ExactDecimal) -> Bool {
        if lhs.negative != rhs.negative { return lhs.negative }
        let order = compareMagnitudes(lhs, rhs)
        return lhs.negative ? order > 0 : order < 0
    }

    package static func + (lhs: ExactDecimal, rhs: ExactDecimal) -> ExactDecimal {
        if lhs.isZero { return rhs }
        if rhs.isZero { return lhs }
        let low = min(lhs.exponent, rhs.exponent)
        let a = lhs.digits(alignedTo: low)
        let b = rhs.digits(alignedTo: low)
        if lhs.negative == rhs.negative {
            var sum: [UInt8] = []
            sum.reserveCapacity(max(a.count, b.count) + 1)
            var carry: UInt8 = 0
            for index in 0..<max(a.count, b.count) {
                let total = (index < a.count ? a[index] : 0) + (index < b.count ? b[index] : 0) + carry
                sum.append(total % 10)
                carry = total / 10
            }
            if carry > 0 { sum.append(carry) }
            return ExactDecimal(digits: sum, exponent: low, negative: lhs.negative)
        }
        // Different signs: the larger magnitude minus the smaller, with the larger's sign.
        let order = compareMagnitudes(lhs, rhs)
        if order == 0 { return .zero }
        let (big, small, sign) = order > 0 ? (a, b, lhs.negative) : (b, a, rhs.negative)
        var difference: [UInt8] = []
        difference.reserveCapacity(big.count)
        var borrow: Int = 0
        for index in 0..<big.count {
            var value = Int(big[index]) - borrow - Int(index < small.count ? small[index] : 0)
            borrow = 0
            if value < 0 {
                value += 10
                borrow = 1
            }
            difference.append(UInt8(value))
        }
        return ExactDecimal(digits: difference, exponent: low, negative: sign)
    }

    package static func += (lhs: inout ExactDecimal, rhs: ExactDecimal) { lhs = lhs + rhs }

    /// This number divided by `divisor` (above zero), rounded half to even to `places` digits
    /// after the point.
    package func divided(by divisor: Int, places: Int) -> ExactDecimal {
        precondition(divisor > 0)
        // The value is M × 10^exponent; the result is round(M × 10^shift / divisor) × 10^-places
        // with shift = exponent + places. For shift ≥ 0 that is a long division of M × 10^shift;
        // for shift < 0, Q = ⌊M / divisor⌋ is divided by 10^-shift by splitting off its low digits B,
        // and B (with the remainder) decides the rounding against one half.
        let shift = exponent + places
        var numerator = digits.reversed().map(Int.init)  // most significant first
        if shift > 0 { numerator += [Int](repeating: 0, count: shift) }
        var quotient: [Int] = []
        var remainder = 0
        for digit in numerator {
            let current = remainder * 10 + digit
            quotient.append(current / divisor)
            remainder = current % divisor
        }
        let above: Int  // the dropped part against one half: -1 below, 0 exactly, 1 above
        if shift >= 0 {
            above = remainder * 2 == divisor ? 0 : (remainder * 2 < divisor ? -1 : 1)
        } else {
            let split = -shift
            var low = Array(quotient.suffix(split))
            quotient.removeLast(low.count)
            low = [Int](repeating: 0, count: split - low.count) + low
            let first = low[0]
            let rest = low.dropFirst().contains { $0 != 0 } || remainder != 0
            above = first > 5 || (first == 5 && rest) ? 1 : (first == 5 ? 0 : -1)
        }
        var result = quotient.isEmpty ? [0] : quotient
        if above > 0 || (above == 0 && (result.last ?? 0) % 2 == 1) {
            var index = result.count - 1
            while index >= 0 {
                result[index] += 1
                if result[index] < 10 { break }
                result[index] = 0
                index -= 1
            }
            if index < 0 { result.insert(1, at: 0) }
        }
        return ExactDecimal(digits: result.reversed().map(UInt8.init), exponent: -places, negative: negative)
    }

    /// Plain notation, no exponent, no trailing fraction zeros: `12.5`, `-0.001`, `100`.
    package var description: String {
        if isZero { return "0" }
        var text = negative ? "-" : ""
        let most = digits.reversed().map { Character(String($0)) }
        if exponent >= 0 {
            text += String(most) + String(repeating: "0", count: exponent)
        } else {
            let fraction = -exponent
            if most.count > fraction {
                text += String(most[..<(most.count - fraction)]) + "." + String(most[(most.count - fraction)...])
            } else {
                text += "0." + String(repeating: "0", count: fraction - most.count) + String(most)
            }
        }
        return text
    }
}
