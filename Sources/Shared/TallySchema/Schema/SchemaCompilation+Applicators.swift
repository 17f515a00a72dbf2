import TallyCore

/// The keywords whose values are schemas: for objects, for arrays, and for the value itself.
extension SchemaCompilation {
    func properties(_ value: JSONValue?, at location: Location) throws(SchemaError) -> [(
        name: String, schema: JSONSchema
    )] {
        guard let value else { return [] }
        guard let members = value.objectMembers else {
            throw SchemaError(.invalidKeyword, path: location.path, message: "properties must be an object")
        }
        var result: [(name: String, schema: JSONSchema)] = []
        for member in members {
            // A property that does not compile is left out (and reported), not replaced by a stand-in.
            do {
                result.append((member.key, try compileNode(member.value, at: location.member(member.key))))
            } catch {
                problems.append(error)
            }
        }
        return result
    }

    func additionalProperties(
        _ value: JSONValue?,
        at location: Location
    ) throws(SchemaError) -> JSONSchema.AdditionalProperties {
        switch value {
        case nil, .bool(true)?: return .allowed
        case .bool(false)?: return .forbidden
        case let schema?: return .schema(subschema(schema, at: location.member("additionalProperties")))
        }
    }

    func compileDefinitions(_ keywords: [String: JSONValue], at location: Location) throws(SchemaError) {
        for name in ["definitions", "$defs"] {
            guard let value = keywords[name] else { continue }
            let container = location.member(name)
            guard let members = value.objectMembers else {
                throw SchemaError(
                    .invalidKeyword,
                    path: container.path,
                    message: "\(name) must be an object of schemas"
                )
            }
            for member in members { _ = subschema(member.value, at: container.member(member.key)) }
        }
    }

    func arrayKeywords(
        _ keywords: [String: JSONValue],
        at location: Location
    ) throws(SchemaError) -> JSONSchema.ArrayKeywords? {
        var items: JSONSchema.ArrayKeywords.Items?
        switch keywords["items"] {
        case nil: break
        case .array(let elements)?:
            let container = location.member("items")
            items = .tuple(elements.enumerated().map { subschema($1, at: container.element($0)) })
        case let schema?:
            items = .every(subschema(schema, at: location.member("items")))
        }
        var additionalItems = JSONSchema.ArrayKeywords.AdditionalItems.allowed
        switch keywords["additionalItems"] {
        case nil, .bool(true)?: break
        case .bool(false)?: additionalItems = .forbidden
        case let schema?: additionalItems = .schema(subschema(schema, at: location.member("additionalItems")))
        }
        // additionalItems only means something after an array of items.
        if case .tuple = items {} else { additionalItems = .allowed }
        let minItems = try count(keywords["minItems"], path: location.path("minItems"))
        let maxItems = try count(keywords["maxItems"], path: location.path("maxItems"))
        var uniqueItems = false
        if let value = keywords["uniqueItems"] {
            guard case .bool(let flag) = value else {
                throw SchemaError(.invalidKeyword, path: location.path("uniqueItems"), message: "must be a boolean")
            }
            uniqueItems = flag
        }
        let contains = keywords["contains"].map { subschema($0, at: location.member("contains")) }
        var isAllowed = false
        if case .allowed = additionalItems { isAllowed = true }
        guard items != nil || !isAllowed || minItems != nil || maxItems != nil || uniqueItems || contains != nil else {
            return nil
        }
        return JSONSchema.ArrayKeywords(
            items: items,
            additionalItems: additionalItems,
            minItems: minItems,
            maxItems: maxItems,
            uniqueItems: uniqueItems,
            contains: contains
        )
    }

    func objectKeywords(
        _ keywords: [String: JSONValue],
        at location: Location
    ) throws(SchemaError) -> JSONSchema.ObjectKeywords? {
        var patternProperties: [(pattern: Pattern, schema: JSONSchema)] = []
        if let value = keywords["patternProperties"] {
            let container = location.member("patternProperties")
            for member in try schemaMap(value, at: container, keyword: "patternProperties") {
                let memberLocation = container.member(member.key)
                do {
                    let pattern = try Self.compilePattern(member.key, path: memberLocation.path)
                    patternProperties.append((pattern, subschema(member.value, at: memberLocation)))
                } catch {
                    problems.append(error)
                }
            }
        }
        let propertyNames = keywords["propertyNames"].map { subschema($0, at: location.member("propertyNames")) }
        let minProperties = try count(keywords["minProperties"], path: location.path("minProperties"))
        let maxProperties = try count(keywords["maxProperties"], path: location.path("maxProperties"))
        var requiredDependencies: [JSONSchema.ObjectKeywords.RequiredDependency] = []
        var schemaDependencies: [(trigger: String, schema: JSONSchema)] = []
        let spellings: [(String, SchemaViolation.Keyword?)] = [
            ("dependencies", .dependencies), ("dependentRequired", .dependentRequired), ("dependentSchemas", nil),
        ]
        for (keyword, requiredKeyword) in spellings {
            guard let value = keywords[keyword] else { continue }
            let container = location.member(keyword)
            for member in try schemaMap(value, at: container, keyword: keyword) {
                let memberLocation = container.member(member.key)
                // `dependencies` takes both forms; each 2019-09 keyword takes one.
                if let requiredKeyword, keyword == "dependentRequired" || member.value.isArray {
                    let names = try names(member.value, path: memberLocation.path, keyword: keyword)
                    requiredDependencies.append(.init(trigger: member.key, required: names, keyword: requiredKeyword))
                } else {
                    schemaDependencies.append((member.key, subschema(member.value, at: memberLocation)))
                }
            }
        }
        guard
            !patternProperties.isEmpty || propertyNames != nil || minProperties != nil || maxProperties != nil
                || !requiredDependencies.isEmpty || !schemaDependencies.isEmpty
        else { return nil }
        return JSONSchema.ObjectKeywords(
            patternProperties: patternProperties,
            propertyNames: propertyNames,
            minProperties: minProperties,
            maxProperties: maxProperties,
            requiredDependencies: requiredDependencies,
            schemaDependencies: schemaDependencies
        )
    }

    func composition(
        _ keywords: [String: JSONValue],
        at location: Location
    ) throws(SchemaError) -> JSONSchema.Composition? {
        func list(_ keyword: String) throws(SchemaError) -> [JSONSchema] {
            guard let value = keywords[keyword] else { return [] }
            guard case .array(let elements) = value, !elements.isEmpty else {
                throw SchemaError(
                    .invalidKeyword,
                    path: location.path(keyword),
                    message: "\(keyword) must be a non-empty array of schemas"
                )
            }
            let container = location.member(keyword)
            return elements.enumerated().map { subschema($1, at: container.element($0)) }
        }
        func single(_ keyword: String) -> JSONSchema? {
            keywords[keyword].map { subschema($0, at: location.member(keyword)) }
        }
        let allOf = try list("allOf")
        let anyOf = try list("anyOf")
        let oneOf = try list("oneOf")
        let not = single("not")
        let condition = single("if")
        // Compiled even without `if`, where they do nothing, so that their problems are reported.
        let then = single("then")
        let otherwise = single("else")
        guard !allOf.isEmpty || !anyOf.isEmpty || !oneOf.isEmpty || not != nil || condition != nil else { return nil }
        return JSONSchema.Composition(
            allOf: allOf,
            anyOf: anyOf,
            oneOf: oneOf,
            not: not,
            condition: condition,
            then: condition == nil ? nil : then,
            otherwise: condition == nil ? nil : otherwise
        )
    }

    /// The members of a keyword whose value is an object (of schemas or of name lists).
    private func schemaMap(_ value: JSONValue, at location: Location, keyword: String) throws(SchemaError)
        -> [JSONMember]
    {
        guard let members = value.objectMembers else {
            throw SchemaError(.invalidKeyword, path: location.path, message: "\(keyword) must be an object")
        }
        return members
    }
}

extension JSONValue {
    fileprivate var isArray: Bool {
        if case .array = self { true } else { false }
    }
}
