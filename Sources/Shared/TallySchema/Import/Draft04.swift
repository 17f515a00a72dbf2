import TallyCore

/// Draft-04 schemas in draft-07 spelling: the registry compiles plans as draft-07, and the only
/// draft-04 keywords whose meaning changed there are `exclusiveMinimum` and `exclusiveMaximum`.
enum Draft04 {
    /// Keywords whose values are data, not schemas: nothing inside them is rewritten.
    static let dataKeywords: Set<String> = ["enum", "const", "default", "examples"]
    /// Keywords whose values map names to schemas: the names are not keywords.
    static let schemaMaps: Set<String> = ["properties", "patternProperties", "definitions", "$defs", "dependencies"]

    /// Whether `schema` declares draft-04 as its `$schema`.
    static func isDeclared(by schema: JSONValue) -> Bool {
        schema["$schema"]?.stringValue?.contains("draft-04") == true
    }

    /// Rewrites draft-04's boolean `exclusiveMinimum`/`exclusiveMaximum` into draft-07's numbers
    /// (`"minimum": 0, "exclusiveMinimum": true` → `"exclusiveMinimum": 0`); the rest is unchanged.
    static func toDraft07(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let elements): return .array(elements.map(toDraft07))
        case .object(let members):
            var result = members.map { member in
                if Self.dataKeywords.contains(member.key) { return member }
                if Self.schemaMaps.contains(member.key), case .object(let named) = member.value {
                    let schemas = named.map { JSONMember(key: $0.key, value: toDraft07($0.value)) }
                    return JSONMember(key: member.key, value: .object(schemas))
                }
                return JSONMember(key: member.key, value: toDraft07(member.value))
            }
            for (exclusive, plain) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
                guard let flag = result.firstIndex(where: { $0.key == exclusive }),
                    case .bool(let isExclusive) = result[flag].value
                else { continue }
                if isExclusive, let bound = result.firstIndex(where: { $0.key == plain }) {
                    result[flag].value = result[bound].value
                    result.remove(at: bound)
                } else {
                    result.remove(at: flag)
                }
            }
            return .object(result)
        default: return value
        }
    }
}
