import TallyCore

/// The keywords about a single value: type, constants, strings, numbers.
extension SchemaCompilation {
    func types(_ value: JSONValue?, path: String) throws(SchemaError) -> Set<JSONSchema.JSONType>? {
        guard let value else { return nil }
        let names: [JSONValue]
        switch value {
        case .string: names = [value]
        case .array(let elements) where !elements.isEmpty: names = elements
        default: throw SchemaError(.invalidKeyword, path: path, message: "type must be a type name or a list of them")
        }
        var types = Set<JSONSchema.JSONType>()
        for name in names {
            guard let text = name.stringValue, let type = JSONSchema.JSONType(rawValue: text) else {
                throw SchemaError(.invalidKeyword, path: path, message: "unknown type \(name)")
            }
            guard types.insert(type).inserted else {
                throw SchemaError(.invalidKeyword, path: path, message: "type \(text) listed twice")
            }
        }
        return types
    }

    func enumValues(_ value: JSONValue?, path: String) throws(SchemaError) -> [JSONValue]? {
        guard let value else { return nil }
        guard case .array(let elements) = value else {
            throw SchemaError(.invalidKeyword, path: path, message: "enum must be an array")
        }
        return elements
    }

    func pattern(_ value: JSONValue?, path: String) throws(SchemaError) -> Pattern? {
        guard let value else { return nil }
        guard let source = value.stringValue else {
            throw SchemaError(.invalidKeyword, path: path, message: "pattern must be a string")
        }
        return try Self.compilePattern(source, path: path)
    }

    static func compilePattern(_ source: String, path: String) throws(SchemaError) -> Pattern {
        do {
            return try Pattern(source)
        } catch {
            throw SchemaError(.invalidPattern, path: path, message: error.description)
        }
    }

    func format(_ value: JSONValue?, path: String) throws(SchemaError) -> SchemaFormat? {
        guard let value else { return nil }
        guard let name = value.stringValue else {
            throw SchemaError(.invalidKeyword, path: path, message: "format must be a string")
        }
        guard let format = SchemaFormat(rawValue: name) else {
            let supported = SchemaFormat.allCases.map(\.rawValue).joined(separator: ", ")
            throw SchemaError(
                .unsupportedFormat,
                path: path,
                message: "format \(name.debugDescription) is not supported (supported: \(supported))"
            )
        }
        return format
    }

    func bounds(
        _ keywords: [String: JSONValue],
        plain: String,
        exclusive: String,
        at location: Location
    ) throws(SchemaError) -> [JSONSchema.Bound] {
        var bounds: [JSONSchema.Bound] = []
        let plainValue = try number(keywords[plain], path: location.path(plain))
        switch (dialect, keywords[exclusive]) {
        case (_, nil):
            if let plainValue { bounds.append(.init(value: plainValue, exclusive: false)) }
        case (.draft04, .bool(let isExclusive)?):
            guard let plainValue else {
                throw SchemaError(.invalidKeyword, path: location.path(exclusive), message: "needs \(plain)")
            }
            bounds.append(.init(value: plainValue, exclusive: isExclusive))
        case (.draft07, let value?):
            if let plainValue { bounds.append(.init(value: plainValue, exclusive: false)) }
            if let limit = try number(value, path: location.path(exclusive)) {
                bounds.append(.init(value: limit, exclusive: true))
            }
        default:
            throw SchemaError(.invalidKeyword, path: location.path(exclusive), message: "must be a boolean in draft-04")
        }
        return bounds
    }

    func number(_ value: JSONValue?, path: String) throws(SchemaError) -> Double? {
        guard let value else { return nil }
        guard case .number(let number) = value, number.doubleValue.isFinite else {
            throw SchemaError(.invalidKeyword, path: path, message: "must be a number")
        }
        return number.doubleValue
    }

    func divisor(_ value: JSONValue?, path: String) throws(SchemaError) -> SchemaDivisor? {
        guard let value else { return nil }
        guard case .number(let number) = value, let divisor = SchemaDivisor(number) else {
            if case .number(let number) = value, let decimal = SchemaDivisor.DecimalText(number.text),
                !decimal.isNegative, !decimal.isZero
            {
                throw SchemaError(
                    .unsupportedKeyword,
                    path: path,
                    message: "multipleOf with more than \(SchemaDivisor.maximumDigits) significant digits"
                )
            }
            throw SchemaError(.invalidKeyword, path: path, message: "multipleOf must be a number greater than 0")
        }
        return divisor
    }

    func count(_ value: JSONValue?, path: String) throws(SchemaError) -> Int? {
        guard let value else { return nil }
        guard case .number(let number) = value, let integer = number.int64Value, integer >= 0 else {
            throw SchemaError(.invalidKeyword, path: path, message: "must be a non-negative integer")
        }
        return Int(integer)
    }

    func required(_ value: JSONValue?, path: String) throws(SchemaError) -> [String] {
        guard let value else { return [] }
        return try names(value, path: path, keyword: "required")
    }

    /// A list of distinct property names (`required`, `dependentRequired`, array `dependencies`).
    func names(_ value: JSONValue, path: String, keyword: String) throws(SchemaError) -> [String] {
        guard case .array(let elements) = value else {
            throw SchemaError(.invalidKeyword, path: path, message: "\(keyword) must be an array of names")
        }
        var names: [String] = []
        for element in elements {
            guard let name = element.stringValue, !names.contains(name) else {
                throw SchemaError(.invalidKeyword, path: path, message: "\(keyword) must list distinct names")
            }
            names.append(name)
        }
        return names
    }
}
