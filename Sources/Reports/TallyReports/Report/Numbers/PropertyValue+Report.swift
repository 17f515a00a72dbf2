package import TallyCore

extension PropertyValue {
    /// The value as an exact decimal, when it is a JSON number.
    package var exactDecimal: ExactDecimal? {
        switch self {
        case .integer(let integer): ExactDecimal(Int(integer))
        case .number(let number): ExactDecimal(jsonText: JSONWriter.numberText(number))
        case .json(let raw) where raw.shape.kind == .number: ExactDecimal(jsonText: raw.text)
        default: nil
        }
    }

    /// How a breakdown names the value, the same in every store: a string as itself; a number in
    /// plain decimal notation without trailing fraction zeros (`25.00` and `2.5e1` are `25`);
    /// `true`, `false`; objects and arrays as compact JSON with keys sorted by their bytes.
    package var reportText: String {
        switch self {
        case .string(let string): string
        case .bool(let bool): bool ? "true" : "false"
        case .null: "null"
        case .integer, .number: exactDecimal?.description ?? ""
        case .json(let raw):
            raw.shape.kind == .number
                ? (exactDecimal?.description ?? raw.text) : Self.canonicalText(raw.value)
        }
    }

    private static func canonicalText(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let bool): return bool ? "true" : "false"
        case .number(let number): return ExactDecimal(jsonText: number.text)?.description ?? number.text
        case .string(let string):
            var bytes: [UInt8] = []
            JSONWriter.appendString(string, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        case .array(let elements): return "[" + elements.map(canonicalText).joined(separator: ",") + "]"
        case .object(let members):
            var latest: [String: JSONValue] = [:]
            for member in members { latest[member.key] = member.value }
            let keys = latest.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            return "{"
                + keys.map { key in canonicalText(.string(key)) + ":" + canonicalText(latest[key]!) }
                .joined(separator: ",") + "}"
        }
    }

    /// Whether the value is an object or an array.
    package var isStructured: Bool {
        if case .json(let raw) = self { return raw.shape.kind == .object || raw.shape.kind == .array }
        return false
    }
}
