import TallyCore

/// Doc comment lines from a plan's descriptions and constraints.
enum Documentation {
    /// The lines of `text` (none when nil or blank), trimmed at the end.
    static func lines(_ text: String?) -> [String] {
        guard let text, text.contains(where: { !$0.isWhitespace }) else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0.reversed().drop { $0.isWhitespace }.reversed())
        }
    }

    /// A property's description, then what the plan constrains (`pattern`, bounds, `format`), which
    /// the compiler cannot check and the pipeline does.
    static func property(_ schema: JSONValue, type: SwiftType) -> [String] {
        var lines = lines(schema["description"]?.stringValue ?? schema["title"]?.stringValue)
        var rules: [String] = []
        for keyword in [
            "pattern", "format", "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "minLength",
            "maxLength", "minItems", "maxItems", "multipleOf",
        ] {
            guard let value = schema[keyword] else { continue }
            switch value {
            case .string(let text): rules.append("\(keyword) `\(text.replacingOccurrences(of: "`", with: "'"))`")
            case .number(let number): rules.append("\(keyword) \(number.text)")
            default: continue
            }
        }
        if type == .jsonText {
            rules.append("JSON text, sent as the value it holds")
        } else if type == .fallback {
            let types = SchemaTypeMapper.types(of: schema).sorted()
            rules.append(
                "sent as written" + (types.isEmpty ? "" : " (the plan allows \(types.joined(separator: ", ")))")
            )
        }
        if !rules.isEmpty {
            if !lines.isEmpty { lines.append("") }
            lines.append("Plan: " + rules.joined(separator: ", ") + ".")
        }
        return lines
    }
}
