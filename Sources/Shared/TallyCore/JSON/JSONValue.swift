/// A parsed JSON value. Objects keep their members in document order, duplicates included
/// (RFC 8259 leaves duplicate names to the application; see ``JSONValue/subscript(_:)``).
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// The value of the last member named `key`, if this is an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// The members, if this is an object.
    public var objectMembers: [JSONMember]? {
        if case .object(let members) = self { members } else { nil }
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let string) = self { string } else { nil }
    }

    /// The JSON type name: `null`, `boolean`, `number`, `string`, `array`, `object`.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

/// One `"key": value` member of a JSON object.
public struct JSONMember: Hashable, Sendable {
    /// The member's name.
    public var key: String
    /// The member's value.
    public var value: JSONValue

    /// Creates a member.
    public init(key: String, value: JSONValue) {
        self.key = key
        self.value = value
    }
}

/// A JSON number, kept as its source text so that nothing is rounded before a schema decides
/// what the number must be.
public struct JSONNumber: Hashable, Sendable, CustomStringConvertible {
    /// The number exactly as written (`-12`, `1.5e3`).
    public var text: String

    /// Creates a number from valid JSON number text.
    public init(text: String) {
        self.text = text
    }

    /// Whether the text has no fraction and no exponent.
    public var isIntegerLiteral: Bool {
        !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
    }

    /// The value as an integer, if it is one that fits `Int64` (`1.0` and `1e2` included).
    public var int64Value: Int64? {
        if isIntegerLiteral { return Int64(text) }
        guard let double = Double(text), double.isFinite, double == double.rounded(),
            abs(double) < 9.2e18
        else { return nil }
        return Int64(double)
    }

    /// The value as a double (infinite when out of range).
    public var doubleValue: Double { Double(text) ?? .nan }

    public var description: String { text }
}
