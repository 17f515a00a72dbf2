public import TallyCore

/// Turns JSON Schema documents into ``JSONSchema`` values, refusing what tally does not support.
public struct SchemaCompiler: Sendable {
    /// Which JSON Schema draft's spelling of the keywords to accept.
    public enum Dialect: Sendable {
        /// `exclusiveMinimum`/`exclusiveMaximum` are booleans modifying `minimum`/`maximum`.
        case draft04
        /// `exclusiveMinimum`/`exclusiveMaximum` are numbers; `const` and boolean schemas exist.
        case draft07
    }

    /// The dialect.
    public var dialect: Dialect

    /// A compiler for `dialect`.
    public init(dialect: Dialect = .draft07) {
        self.dialect = dialect
    }

    static let annotations: Set<String> = [
        "$schema", "$id", "id", "$comment", "title", "description", "default", "examples",
    ]

    /// Collects the problems of sibling keywords and properties, so that lint lists them all.
    private final class Problems: @unchecked Sendable {
        var list: [SchemaError] = []
    }

    private let problems = Problems()

    /// Compiles `value`, naming problems by their JSON path under `path`.
    /// - Throws: the first problem; ``compileReportingAll(_:path:)`` gives every one.
    public func compile(_ value: JSONValue, path: String = "$") throws(SchemaError) -> JSONSchema {
        let compiler = SchemaCompiler(dialect: dialect)
        let schema = try compiler.compileNode(value, path: path)
        if let first = compiler.problems.list.first { throw first }
        return schema
    }

    /// Compiles `value`, returning every problem found (in document order) instead of the first,
    /// and the schema as far as it could be compiled (use it only when there are no problems).
    public func compileReportingAll(_ value: JSONValue, path: String = "$") -> (
        schema: JSONSchema?, problems: [SchemaError]
    ) {
        let compiler = SchemaCompiler(dialect: dialect)
        do {
            let schema = try compiler.compileNode(value, path: path)
            // With problems, the schema is what could be compiled: good enough for further checks.
            return (schema, compiler.problems.list)
        } catch {
            return (nil, compiler.problems.list + [error])
        }
    }

    private func compileNode(_ value: JSONValue, path: String) throws(SchemaError) -> JSONSchema {
        if case .bool(let accepts) = value, dialect == .draft07 {
            return JSONSchema(rejectsEverything: !accepts, source: value)
        }
        guard let members = value.objectMembers else {
            throw SchemaError(.invalidKeyword, path: path, message: "a schema must be an object")
        }
        var keywords: [String: JSONValue] = [:]
        for member in members {
            let keywordPath = "\(path).\(member.key)"
            guard keywords.updateValue(member.value, forKey: member.key) == nil else {
                throw SchemaError(.invalidKeyword, path: keywordPath, message: "keyword given twice")
            }
            guard Self.supported.contains(member.key) || Self.annotations.contains(member.key) else {
                problems.list.append(
                    SchemaError(
                        .unsupportedKeyword,
                        path: keywordPath,
                        message: "keyword \(member.key.debugDescription) is not supported"
                    )
                )
                continue
            }
            if member.key == "const", dialect == .draft04 {
                problems.list.append(
                    SchemaError(.unsupportedKeyword, path: keywordPath, message: "const is not a draft-04 keyword")
                )
            }
        }
        return JSONSchema(
            types: try types(keywords["type"], path: path + ".type"),
            enumValues: try enumValues(keywords["enum"], path: path + ".enum"),
            constValue: keywords["const"],
            pattern: try pattern(keywords["pattern"], path: path + ".pattern"),
            format: try format(keywords["format"], path: path + ".format"),
            lowerBounds: try bounds(keywords, plain: "minimum", exclusive: "exclusiveMinimum", path: path),
            upperBounds: try bounds(keywords, plain: "maximum", exclusive: "exclusiveMaximum", path: path),
            minLength: try count(keywords["minLength"], path: path + ".minLength"),
            maxLength: try count(keywords["maxLength"], path: path + ".maxLength"),
            required: try required(keywords["required"], path: path + ".required"),
            properties: try properties(keywords["properties"], path: path + ".properties"),
            additionalProperties: try additional(
                keywords["additionalProperties"],
                path: path + ".additionalProperties"
            ),
            description: keywords["description"]?.stringValue,
            source: value
        )
    }

    static let supported: Set<String> = [
        "type", "enum", "const", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "minLength", "maxLength", "required", "properties", "additionalProperties",
    ]

    private func types(_ value: JSONValue?, path: String) throws(SchemaError) -> Set<JSONSchema.JSONType>? {
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

    private func enumValues(_ value: JSONValue?, path: String) throws(SchemaError) -> [JSONValue]? {
        guard let value else { return nil }
        guard case .array(let elements) = value else {
            throw SchemaError(.invalidKeyword, path: path, message: "enum must be an array")
        }
        return elements
    }

    private func pattern(_ value: JSONValue?, path: String) throws(SchemaError) -> Pattern? {
        guard let value else { return nil }
        guard let source = value.stringValue else {
            throw SchemaError(.invalidKeyword, path: path, message: "pattern must be a string")
        }
        do {
            return try Pattern(source)
        } catch {
            throw SchemaError(.invalidPattern, path: path, message: error.description)
        }
    }

    private func format(_ value: JSONValue?, path: String) throws(SchemaError) -> SchemaFormat? {
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

    private func bounds(
        _ keywords: [String: JSONValue],
        plain: String,
        exclusive: String,
        path: String
    ) throws(SchemaError) -> [JSONSchema.Bound] {
        var bounds: [JSONSchema.Bound] = []
        let plainValue = try number(keywords[plain], path: "\(path).\(plain)")
        switch (dialect, keywords[exclusive]) {
        case (_, nil):
            if let plainValue { bounds.append(.init(value: plainValue, exclusive: false)) }
        case (.draft04, .bool(let isExclusive)?):
            guard let plainValue else {
                throw SchemaError(.invalidKeyword, path: "\(path).\(exclusive)", message: "needs \(plain)")
            }
            bounds.append(.init(value: plainValue, exclusive: isExclusive))
        case (.draft07, let value?):
            if let plainValue { bounds.append(.init(value: plainValue, exclusive: false)) }
            if let limit = try number(value, path: "\(path).\(exclusive)") {
                bounds.append(.init(value: limit, exclusive: true))
            }
        default:
            throw SchemaError(.invalidKeyword, path: "\(path).\(exclusive)", message: "must be a boolean in draft-04")
        }
        return bounds
    }

    private func number(_ value: JSONValue?, path: String) throws(SchemaError) -> Double? {
        guard let value else { return nil }
        guard case .number(let number) = value, number.doubleValue.isFinite else {
            throw SchemaError(.invalidKeyword, path: path, message: "must be a number")
        }
        return number.doubleValue
    }

    private func count(_ value: JSONValue?, path: String) throws(SchemaError) -> Int? {
        guard let value else { return nil }
        guard case .number(let number) = value, let integer = number.int64Value, integer >= 0 else {
            throw SchemaError(.invalidKeyword, path: path, message: "must be a non-negative integer")
        }
        return Int(integer)
    }

    private func required(_ value: JSONValue?, path: String) throws(SchemaError) -> [String] {
        guard let value else { return [] }
        guard case .array(let elements) = value else {
            throw SchemaError(.invalidKeyword, path: path, message: "required must be an array of names")
        }
        var names: [String] = []
        for element in elements {
            guard let name = element.stringValue, !names.contains(name) else {
                throw SchemaError(.invalidKeyword, path: path, message: "required must list distinct names")
            }
            names.append(name)
        }
        return names
    }

    private func properties(_ value: JSONValue?, path: String) throws(SchemaError) -> [(
        name: String, schema: JSONSchema
    )] {
        guard let value else { return [] }
        guard let members = value.objectMembers else {
            throw SchemaError(.invalidKeyword, path: path, message: "properties must be an object")
        }
        var result: [(name: String, schema: JSONSchema)] = []
        for member in members {
            do {
                result.append((member.key, try compileNode(member.value, path: "\(path).\(member.key)")))
            } catch {
                problems.list.append(error)
            }
        }
        return result
    }

    private func additional(_ value: JSONValue?, path: String) throws(SchemaError) -> JSONSchema.AdditionalProperties {
        switch value {
        case nil, .bool(true)?: return .allowed
        case .bool(false)?: return .forbidden
        case let schema?: return .schema(try compileNode(schema, path: path))
        }
    }
}
