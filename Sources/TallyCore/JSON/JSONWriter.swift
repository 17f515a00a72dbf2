/// Appends JSON text to a byte buffer: the small, fast core of every encoder in tally.
public enum JSONWriter {
    /// Appends `value` as a JSON string literal, escaping quotes, backslashes and control characters.
    @inline(__always)
    public static func appendString(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if runStart < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
                appendEscape(byte, to: &bytes)
                runStart = index + 1
            }
            if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(_ byte: UInt8, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        default:
            let hex: StaticString = "0123456789abcdef"
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            hex.withUTF8Buffer { digits in
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0xF)])
            }
        }
    }

    /// Appends an integer in decimal.
    @inline(__always)
    public static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        var magnitude = value.magnitude
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // up to 20 digits, written in reverse
        var count = 0
        withUnsafeMutableBytes(of: &digits) { scratch in
            while magnitude > 0 {
                scratch[count] = UInt8(truncatingIfNeeded: 48 + magnitude % 10)
                magnitude /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(scratch[index]) }
        }
    }

    /// The JSON text of a double: the shortest form that reads back the same; `null` for NaN and
    /// infinities, which JSON cannot express.
    public static func numberText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(.towardZero), abs(value) < 1e15 {
            // `-0.0` keeps its sign: JSON allows `-0` and it reads back as negative zero.
            return (value == 0 && value.sign == .minus ? "-" : "") + String(Int64(value)) + ".0"
        }
        return value.description
    }

    /// Appends ``numberText(_:)``.
    public static func appendNumber(_ value: Double, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: numberText(value).utf8)
    }

    /// Appends a property value.
    @inline(__always)
    public static func appendValue(_ value: PropertyValue, to bytes: inout [UInt8]) {
        switch value {
        case .string(let string): appendString(string, to: &bytes)
        case .integer(let integer): appendInteger(integer, to: &bytes)
        case .number(let number): appendNumber(number, to: &bytes)
        case .bool(let bool): bytes.append(contentsOf: bool ? "true".utf8 : "false".utf8)
        case .null: bytes.append(contentsOf: "null".utf8)
        }
    }
}
