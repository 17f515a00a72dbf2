import TallyCore

/// One run of ``SchemaCompiler`` over one document: the schemas compiled so far (by JSON pointer,
/// so that a `$ref` and the tree walk share one ``JSONSchema`` per location), the references
/// waiting for a schema still being compiled, and the problems found. Used by one thread, once.
final class SchemaCompilation {
    /// Where a schema is: its JSON path for messages, its pointer tokens for `$ref`.
    struct Location {
        /// `$.properties.items.items[0]`.
        var path: String
        /// The unescaped JSON pointer tokens from the document root.
        var tokens: [String]
        /// The escaped JSON pointer (`/properties/a~1b`): the key of ``SchemaCompilation/compiled``.
        var pointer: String

        func member(_ key: String) -> Location {
            Location(path: "\(path).\(key)", tokens: tokens + [key], pointer: pointer + "/" + Self.escape(key))
        }

        func element(_ index: Int) -> Location {
            Location(path: "\(path)[\(index)]", tokens: tokens + [String(index)], pointer: pointer + "/\(index)")
        }

        /// The path of keyword `name` of the schema here.
        func path(_ name: String) -> String { "\(path).\(name)" }

        static func escape(_ token: String) -> String {
            guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
                return token
            }
            var escaped = ""
            for scalar in token.unicodeScalars {
                switch scalar {
                case "~": escaped += "~0"
                case "/": escaped += "~1"
                default: escaped.unicodeScalars.append(scalar)
                }
            }
            return escaped
        }
    }

    let dialect: SchemaCompiler.Dialect
    /// The value being compiled: what `#` means.
    let document: JSONValue
    let documentPath: String
    /// Problems that do not stop compilation, in the order found, so that lint lists them all.
    var problems: [SchemaError] = []
    /// Every schema compiled, by escaped JSON pointer.
    var compiled: [String: JSONSchema] = [:]
    /// Pointers whose schema is being compiled (a `$ref` to one of them is recursive).
    var inProgress: Set<String> = []
    /// References to schemas still being compiled, by their pointer.
    var waiting: [String: [SchemaReference]] = [:]
    /// The path of each `$ref`, for the cycle check.
    var referencePaths: [ObjectIdentifier: String] = [:]
    /// Whether ``SchemaCompiler/personalDataKeyword`` is accepted (tracking plans only).
    var tallyKeywords = false
    /// The schemas marked with it, by identity: the keyword's path and its action.
    var personalDataMarks: [ObjectIdentifier: (path: String, action: PersonalDataAction)] = [:]

    init(dialect: SchemaCompiler.Dialect, document: JSONValue, path: String) {
        self.dialect = dialect
        self.document = document
        documentPath = path
    }

    /// Compiles the document.
    /// - Throws: a problem that leaves no schema at the root; the others are in ``problems``.
    func run() throws(SchemaError) -> JSONSchema {
        let schema = try compileNode(document, at: Location(path: documentPath, tokens: [], pointer: ""))
        for (_, references) in waiting {
            // Only after a problem was recorded; the stand-in keeps the schema usable for lint.
            for reference in references where !reference.isResolved { reference.resolve(to: JSONSchema(source: .null)) }
        }
        waiting = [:]
        if !referencePaths.isEmpty { checkReferenceCycles() }
        return schema
    }

    /// The schema at `location`, compiled once however many times it is reached.
    func compileNode(_ value: JSONValue, at location: Location) throws(SchemaError) -> JSONSchema {
        if let schema = compiled[location.pointer] { return schema }
        inProgress.insert(location.pointer)
        defer { inProgress.remove(location.pointer) }
        let schema: JSONSchema
        do {
            schema = try build(value, at: location)
        } catch {
            // The caller reports the problem; a second visit (through a $ref) finds the stand-in.
            finish(location.pointer, with: JSONSchema(source: value))
            throw error
        }
        finish(location.pointer, with: schema)
        if tallyKeywords, let mark = value[SchemaCompiler.personalDataKeyword]?.stringValue,
            let action = PersonalDataAction(rawValue: mark)
        {
            personalDataMarks[ObjectIdentifier(schema)] = (location.path(SchemaCompiler.personalDataKeyword), action)
        }
        return schema
    }

    /// A subschema, with its problem recorded (and an accept-all stand-in returned) so that the
    /// rest of the document is still checked.
    func subschema(_ value: JSONValue, at location: Location) -> JSONSchema {
        do {
            return try compileNode(value, at: location)
        } catch {
            problems.append(error)
            return JSONSchema(source: value)
        }
    }

    private func finish(_ pointer: String, with schema: JSONSchema) {
        compiled[pointer] = schema
        for reference in waiting.removeValue(forKey: pointer) ?? [] { reference.resolve(to: schema) }
    }

    private func build(_ value: JSONValue, at location: Location) throws(SchemaError) -> JSONSchema {
        if case .bool(let accepts) = value, dialect == .draft07 {
            return JSONSchema(rejectsEverything: !accepts, source: value)
        }
        guard let members = value.objectMembers else {
            throw SchemaError(.invalidKeyword, path: location.path, message: "a schema must be an object")
        }
        var keywords: [String: JSONValue] = [:]
        for member in members {
            let keywordPath = location.path(member.key)
            guard keywords.updateValue(member.value, forKey: member.key) == nil else {
                throw SchemaError(.invalidKeyword, path: keywordPath, message: "keyword given twice")
            }
            let key = member.key
            if SchemaCompiler.supported.contains(key) || SchemaCompiler.annotations.contains(key) { continue }
            if key == SchemaCompiler.personalDataKeyword, tallyKeywords {
                // tally's, not JSON Schema's: it changes what the device sends, never what validates.
                if member.value.stringValue.flatMap(PersonalDataAction.init(rawValue:)) == nil {
                    problems.append(
                        SchemaError(.invalidKeyword, path: keywordPath, message: "must be \"remove\" or \"hash\"")
                    )
                }
                keywords[key] = nil
                continue
            }
            if SchemaCompiler.draft07Only.contains(key), dialect == .draft07 { continue }
            let message =
                SchemaCompiler.draft07Only.contains(key)
                ? "\(key) is not a draft-04 keyword" : "keyword \(key.debugDescription) is not supported"
            problems.append(SchemaError(.unsupportedKeyword, path: keywordPath, message: message))
            keywords[key] = nil
        }
        // Definitions are compiled even when unused, so that lint reports their problems.
        try compileDefinitions(keywords, at: location)
        if let target = keywords["$ref"] {
            // Draft-04 and draft-07: "All other properties in a $ref object MUST be ignored."
            return JSONSchema(
                reference: try reference(target, at: location),
                description: keywords["description"]?.stringValue,
                source: value
            )
        }
        return JSONSchema(
            types: try types(keywords["type"], path: location.path("type")),
            enumValues: try enumValues(keywords["enum"], path: location.path("enum")),
            constValue: keywords["const"],
            pattern: try pattern(keywords["pattern"], path: location.path("pattern")),
            format: try format(keywords["format"], path: location.path("format")),
            lowerBounds: try bounds(keywords, plain: "minimum", exclusive: "exclusiveMinimum", at: location),
            upperBounds: try bounds(keywords, plain: "maximum", exclusive: "exclusiveMaximum", at: location),
            minLength: try count(keywords["minLength"], path: location.path("minLength")),
            maxLength: try count(keywords["maxLength"], path: location.path("maxLength")),
            required: try required(keywords["required"], path: location.path("required")),
            properties: try properties(keywords["properties"], at: location.member("properties")),
            additionalProperties: try additionalProperties(keywords["additionalProperties"], at: location),
            multipleOf: try divisor(keywords["multipleOf"], path: location.path("multipleOf")),
            arrayKeywords: try arrayKeywords(keywords, at: location),
            objectKeywords: try objectKeywords(keywords, at: location),
            composition: try composition(keywords, at: location),
            description: keywords["description"]?.stringValue,
            source: value
        )
    }

    /// Refuses a `$ref` cycle that never moves into an item or a property (`{"$ref": "#"}`,
    /// `{"anyOf": [{"$ref": "#"}]}`): validating against it would never end.
    private func checkReferenceCycles() {
        var finished: [ObjectIdentifier: Bool] = [:]  // false while on the search path
        var culprit: SchemaReference?
        func visit(_ schema: JSONSchema, lastReference: SchemaReference?) {
            guard culprit == nil else { return }
            switch finished[ObjectIdentifier(schema)] {
            case true?: return
            case false?:
                culprit = lastReference
                return
            case nil: break
            }
            finished[ObjectIdentifier(schema)] = false
            if let reference = schema.reference { visit(reference.target, lastReference: reference) }
            for subschema in schema.composition?.inPlaceSubschemas ?? [] {
                visit(subschema, lastReference: lastReference)
            }
            for dependency in schema.objectKeywords?.schemaDependencies ?? [] {
                visit(dependency.schema, lastReference: lastReference)
            }
            finished[ObjectIdentifier(schema)] = true
        }
        for pointer in compiled.keys.sorted() { visit(compiled[pointer]!, lastReference: nil) }
        if let culprit {
            problems.append(
                SchemaError(
                    .invalidKeyword,
                    path: referencePaths[ObjectIdentifier(culprit)] ?? documentPath,
                    message: "$ref \(culprit.text.debugDescription) leads back to itself without going into an item "
                        + "or a property: validation would never end"
                )
            )
        }
    }
}
