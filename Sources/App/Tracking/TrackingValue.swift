/// A property value with its type, as an event that knows its properties' types gives it
/// (``TypedTrackingEventContract``; the events `tally schema generate --swift` writes).
///
/// tally stores these as the JSON values they are: `.integer(3)` is the number `3`, never the
/// text `"3"`.
public enum TrackingValue: Sendable, Hashable {
    case string(String)
    case integer(Int)
    /// A finite number; infinity and NaN have no JSON value and are sent as `null`.
    case number(Double)
    case bool(Bool)
    /// An object (a generated struct); absent optional members are left out.
    case object([String: TrackingValue])
    case array([TrackingValue])
    /// JSON text, sent as the value it holds: for a property the plan does not describe closely
    /// enough for a Swift type (an object without declared properties). Text that is not JSON is
    /// sent as a string, which the plan then judges.
    case json(String)
}

extension TrackingValue: CustomStringConvertible {
    /// The value as ``TrackingEventContract/properties`` carries it: scalars as their text
    /// (`String(3)`), objects and arrays as JSON text with their keys in byte order.
    public var description: String {
        switch self {
        case .string(let string), .json(let string): return string
        case .integer(let integer): return String(integer)
        case .number(let number): return String(number)
        case .bool(let bool): return bool ? "true" : "false"
        case .object, .array:
            var text = ""
            appendJSON(to: &text)
            return text
        }
    }

    /// Appends the value as JSON text.
    private func appendJSON(to text: inout String) {
        switch self {
        case .string(let string): Self.appendString(string, to: &text)
        case .json(let json): text += json
        case .integer(let integer): text += String(integer)
        case .number(let number): text += number.isFinite ? String(number) : "null"
        case .bool(let bool): text += bool ? "true" : "false"
        case .object(let members):
            text += "{"
            for (index, key) in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if index > 0 { text += "," }
                Self.appendString(key, to: &text)
                text += ":"
                members[key]?.appendJSON(to: &text)
            }
            text += "}"
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                element.appendJSON(to: &text)
            }
            text += "]"
        }
    }

    private static func appendString(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        text += "\""
    }
}

extension TrackingValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
