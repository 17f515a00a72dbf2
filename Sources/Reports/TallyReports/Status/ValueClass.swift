import TallyCore

/// The class of a stored property value that decides whether a plan allows it: the JSON type,
/// `integer` for numbers without a fraction (`1.0` too, as JSON Schema counts it), and for strings
/// what they hold (`string:integer` for `"42"`), which a plan that normalizes strings reads as that
/// type. PostgreSQL computes the same classes in SQL (``PostgresStatusReader``).
enum ValueClass {
    static func of(_ value: PropertyValue) -> String {
        switch value {
        case .string(let string): return of(string: string)
        case .integer: return "integer"
        case .number(let number): return number == number.rounded() ? "integer" : "number"
        case .bool: return "boolean"
        case .null: return "null"
        case .json(let raw):
            switch raw.value {
            case .number(let number):
                return number.isIntegerLiteral || number.doubleValue == number.doubleValue.rounded()
                    ? "integer" : "number"
            case .string(let string): return of(string: string)
            case let other: return other.typeName
            }
        }
    }

    /// `^-?(0|[1-9][0-9]*)$` → `string:integer`; a JSON number → `string:number`; `true` / `false` →
    /// `string:boolean`; starting with `{` or `[` → `string:object` / `string:array`; else `string`.
    static func of(string: String) -> String {
        let bytes = Array(string.utf8)
        if let end = integerEnd(bytes), end == bytes.count { return "string:integer" }
        if isNumber(bytes) { return "string:number" }
        if string == "true" || string == "false" { return "string:boolean" }
        if bytes.first == UInt8(ascii: "{") { return "string:object" }
        if bytes.first == UInt8(ascii: "[") { return "string:array" }
        return "string"
    }

    /// Where `-?(0|[1-9][0-9]*)` ends, when the bytes start with it.
    private static func integerEnd(_ bytes: [UInt8]) -> Int? {
        var index = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { return nil }
        if bytes[index] == UInt8(ascii: "0") { return index + 1 }
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        return index
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    private static func isNumber(_ bytes: [UInt8]) -> Bool {
        guard var index = integerEnd(bytes) else { return false }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            if index == start { return false }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            let start = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            if index == start { return false }
        }
        return index == bytes.count
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// The SQL expression of the same classes for the jsonb value `value`.
    static let sql = """
        CASE jsonb_typeof(value)
            WHEN 'number' THEN CASE WHEN value::numeric % 1 = 0 THEN 'integer' ELSE 'number' END
            WHEN 'string' THEN CASE
                WHEN value #>> '{}' ~ '^-?(0|[1-9][0-9]*)$' THEN 'string:integer'
                WHEN value #>> '{}' ~ '^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$' THEN 'string:number'
                WHEN value #>> '{}' IN ('true', 'false') THEN 'string:boolean'
                WHEN left(value #>> '{}', 1) = '{' THEN 'string:object'
                WHEN left(value #>> '{}', 1) = '[' THEN 'string:array'
                ELSE 'string' END
            ELSE jsonb_typeof(value) END
        """
}
