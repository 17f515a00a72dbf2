/// One property value: any JSON value.
///
/// Events from `TrackingEventContract` carry strings; JSON sources carry any value. Scalars in
/// tally's own writing are held as typed cases (the fast path: most events have only these);
/// objects, arrays and numbers written differently (`25.00`, `1e3`, integers past 64 bits) are
/// ``RawJSON``, stored byte for byte as sent. A tracking plan declares each property's type;
/// types are never inferred from the data.
public enum PropertyValue: Hashable, Sendable {
    case string(String)
    case integer(Int64)
    case number(Double)
    case bool(Bool)
    case null
    /// An object, an array, or a number kept in its original spelling.
    case json(RawJSON)
}

extension PropertyValue {
    /// The value as a parsed JSON value (for schema validation).
    public var jsonValue: JSONValue {
        switch self {
        case .string(let string): .string(string)
        case .integer(let integer): .number(JSONNumber(text: String(integer)))
        case .number(let number): .number(JSONNumber(text: JSONWriter.numberText(number)))
        case .bool(let bool): .bool(bool)
        case .null: .null
        case .json(let raw): raw.value
        }
    }

    /// A property value for a parsed JSON value: scalars in their typed cases when that keeps their
    /// spelling, everything else as raw JSON in tally's compact writing.
    public init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .string(let string): self = .string(string)
        case .number(let number): self = PropertyValue(numberText: number.text)
        case .array, .object: self = .json(RawJSON(value))
        }
    }

    /// The value of valid JSON number text: `.integer` or `.number` when tally writes that value
    /// back with the same text, else raw JSON holding the text as sent.
    public init(numberText text: String) {
        if let integer = Int64(text), integer != 0 || text.utf8.first != UInt8(ascii: "-") {
            self = .integer(integer)
        } else if let double = Double(text), double.isFinite,
            Self.isShortestDecimal(text) || JSONWriter.numberText(double) == text
        {
            self = .number(double)
        } else {
            self = .json(RawJSON(validatedText: text, shape: RawJSON.Shape(number: ())))
        }
    }

    /// ``init(numberText:)`` over the text's bytes: plain integers and short decimals that tally
    /// writes back unchanged are read without making a `String` of them.
    package init(numberBytes bytes: UnsafeBufferPointer<UInt8>) {
        if let integer = DecimalText.integer(bytes) {
            self = .integer(integer)
        } else if Self.isShortestDecimal(bytes), let double = DecimalText.double(bytes) {
            self = .number(double)
        } else if Self.hasPaddedFraction(bytes) {
            // `27.50`: tally never writes a number so (an integral value gets one `.0`, any
            // other is shortest), so it stays raw without reading and formatting its value.
            self = .json(
                RawJSON(validatedText: String(decoding: bytes, as: UTF8.self), shape: RawJSON.Shape(number: ()))
            )
        } else {
            self.init(numberText: String(decoding: bytes, as: UTF8.self))
        }
    }

    /// Whether `text` is how ``JSONWriter/numberText(_:)`` writes its value, decided without
    /// formatting it (formatting costs ~150 ns, a quarter of decoding a typical event): a plain
    /// decimal (`-12.5`, `0.001`) with 1–15 significant digits, no trailing zero in the fraction,
    /// at least 0.0001 in magnitude. Such a decimal is the shortest text of its double (any two
    /// decimals of at most 15 digits are different doubles), and Swift writes it unchanged.
    /// Anything else is decided by formatting.
    private static func isShortestDecimal(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isShortestDecimal($0) }
    }

    /// Whether `text` (a valid JSON number) is a plain decimal whose fraction has two or more
    /// digits and ends in zero (`25.00`, `-1.250`).
    private static func hasPaddedFraction(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let point = text.firstIndex(of: UInt8(ascii: ".")), text.count - point > 2,
            text.last == UInt8(ascii: "0")
        else { return false }
        return !text.contains(UInt8(ascii: "e")) && !text.contains(UInt8(ascii: "E"))
    }

    private static func isShortestDecimal(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var utf8 = text.makeIterator()
        var byte = utf8.next()
        if byte == UInt8(ascii: "-") { byte = utf8.next() }
        var significant = 0
        var leadingZeros = 0
        var integerIsZero = false
        if byte == UInt8(ascii: "0") {
            integerIsZero = true
            byte = utf8.next()
        } else {
            while let digit = byte, digit &- UInt8(ascii: "0") < 10 {
                significant += 1
                byte = utf8.next()
            }
        }
        guard byte == UInt8(ascii: ".") else { return false }
        byte = utf8.next()
        var last: UInt8 = 0
        var fractionDigits = 0
        while let digit = byte, digit &- UInt8(ascii: "0") < 10 {
            if integerIsZero, significant == 0, digit == UInt8(ascii: "0") {
                leadingZeros += 1
            } else {
                significant += 1
            }
            fractionDigits += 1
            last = digit
            byte = utf8.next()
        }
        return byte == nil && fractionDigits > 0 && last != UInt8(ascii: "0") && significant <= 15
            && leadingZeros < 4
    }

    /// The JSON type name: `string`, `integer`, `number`, `boolean`, `null`, `object`, `array`.
    public var typeName: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .number: "number"
        case .bool: "boolean"
        case .null: "null"
        case .json(let raw): raw.typeName
        }
    }
}

extension PropertyValue: CustomStringConvertible {
    /// The value as text: strings as they are, everything else as its JSON.
    public var description: String {
        switch self {
        case .string(let value): value
        case .integer(let value): String(value)
        case .number(let value): JSONWriter.numberText(value)
        case .bool(let value): value ? "true" : "false"
        case .null: "null"
        case .json(let raw): raw.text
        }
    }
}

extension PropertyValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
}
