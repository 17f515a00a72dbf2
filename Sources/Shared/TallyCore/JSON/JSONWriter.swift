/// Appends JSON text to a byte buffer: the small, fast core of every encoder in tally.
package enum JSONWriter {
    /// Appends `value` as a JSON string literal, escaping quotes, backslashes and control characters.
    @inline(__always)
    package static func appendString(_ value: String, to bytes: inout [UInt8]) {
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
    package static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
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
    package static func numberText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(.towardZero), abs(value) < 1e15 {
            // `-0.0` keeps its sign: JSON allows `-0` and it reads back as negative zero.
            return (value == 0 && value.sign == .minus ? "-" : "") + String(Int64(value)) + ".0"
        }
        return value.description
    }

    /// Appends ``numberText(_:)``.
    package static func appendNumber(_ value: Double, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: numberText(value).utf8)
    }

    /// Appends a property value.
    @inline(__always)
    package static func appendValue(_ value: PropertyValue, to bytes: inout [UInt8]) {
        switch value {
        case .string(let string): appendString(string, to: &bytes)
        case .integer(let integer): appendInteger(integer, to: &bytes)
        case .number(let number): appendNumber(number, to: &bytes)
        case .bool(let bool): bytes.append(contentsOf: bool ? "true".utf8 : "false".utf8)
        case .null: bytes.append(contentsOf: "null".utf8)
        case .json(let raw): bytes.append(contentsOf: raw.text.utf8)
        }
    }
}

extension JSONWriter {
    /// `value` as JSON text: compact, or indented by two spaces with one member per line.
    package static func text(_ value: JSONValue, pretty: Bool = false) -> String {
        var bytes: [UInt8] = []
        append(value, to: &bytes, indent: pretty ? 0 : nil)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func append(_ value: JSONValue, to bytes: inout [UInt8], indent: Int?) {
        func newline(_ level: Int) {
            guard let indent else { return }
            bytes.append(UInt8(ascii: "\n"))
            bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: (indent + level) * 2))
        }
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let bool): bytes.append(contentsOf: bool ? "true".utf8 : "false".utf8)
        case .number(let number): bytes.append(contentsOf: number.text.utf8)
        case .string(let string): appendString(string, to: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(1)
                append(element, to: &bytes, indent: indent.map { $0 + 1 })
            }
            if !elements.isEmpty { newline(0) }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(1)
                appendString(member.key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                if indent != nil { bytes.append(UInt8(ascii: " ")) }
                append(member.value, to: &bytes, indent: indent.map { $0 + 1 })
            }
            if !members.isEmpty { newline(0) }
            bytes.append(UInt8(ascii: "}"))
        }
    }
}
