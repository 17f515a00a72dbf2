import TallyCore

extension JSONSchema {
    /// `patternProperties`, `propertyNames`, `minProperties`, `maxProperties`, and dependencies.
    final class ObjectKeywords: Sendable {
        /// Properties that must be present when `trigger` is: the array form of `dependencies`,
        /// or `dependentRequired`.
        struct RequiredDependency: Sendable {
            let trigger: String
            let required: [String]
            /// How the schema spelled it, so that the violation names the keyword the author wrote.
            let keyword: SchemaViolation.Keyword
        }

        let patternProperties: [(pattern: Pattern, schema: JSONSchema)]
        let propertyNames: JSONSchema?
        let minProperties: Int?
        let maxProperties: Int?
        let requiredDependencies: [RequiredDependency]
        /// The schema form of `dependencies`, or `dependentSchemas`: applies to the whole object.
        let schemaDependencies: [(trigger: String, schema: JSONSchema)]

        init(
            patternProperties: [(pattern: Pattern, schema: JSONSchema)],
            propertyNames: JSONSchema?,
            minProperties: Int?,
            maxProperties: Int?,
            requiredDependencies: [RequiredDependency],
            schemaDependencies: [(trigger: String, schema: JSONSchema)]
        ) {
            self.patternProperties = patternProperties
            self.propertyNames = propertyNames
            self.minProperties = minProperties
            self.maxProperties = maxProperties
            self.requiredDependencies = requiredDependencies
            self.schemaDependencies = schemaDependencies
        }
    }

    /// ``validateObject(_:path:into:)`` for a schema with object keywords beyond `properties`,
    /// `required` and `additionalProperties`: a property is additional only when neither
    /// `properties` nor a `patternProperties` pattern covers it.
    @inline(never)
    func validateObject(
        _ members: [JSONMember],
        path: @autoclosure () -> String,
        keywords: ObjectKeywords,
        into violations: inout [SchemaViolation]
    ) {
        validateRequired(members, path: path(), into: &violations)
        for member in members {
            func memberPath() -> String { "\(path()).\(member.key)" }
            var isDeclared = false
            if let schema = property(member.key) {
                schema.validate(member.value, path: memberPath(), into: &violations)
                isDeclared = true
            }
            for (pattern, schema) in keywords.patternProperties where pattern.matches(member.key) {
                schema.validate(member.value, path: memberPath(), into: &violations)
                isDeclared = true
            }
            if isDeclared { continue }
            switch additionalProperties {
            case .allowed: break
            case .forbidden:
                violations.append(
                    .init(keyword: .additionalProperties, path: memberPath(), message: "is not declared in the schema")
                )
            case .schema(let schema): schema.validate(member.value, path: memberPath(), into: &violations)
            }
        }
        validateObjectKeywords(members, path: path(), keywords: keywords, into: &violations)
    }

    /// The object keywords that look at the object as a whole.
    private func validateObjectKeywords(
        _ members: [JSONMember],
        path: @autoclosure () -> String,
        keywords: ObjectKeywords,
        into violations: inout [SchemaViolation]
    ) {
        if let minProperties = keywords.minProperties, members.count < minProperties {
            violations.append(
                .init(keyword: .minProperties, path: path(), message: "has fewer than \(minProperties) properties")
            )
        }
        if let maxProperties = keywords.maxProperties, members.count > maxProperties {
            violations.append(
                .init(keyword: .maxProperties, path: path(), message: "has more than \(maxProperties) properties")
            )
        }
        if let propertyNames = keywords.propertyNames {
            for member in members {
                var nameViolations: [SchemaViolation] = []
                propertyNames.validate(.string(member.key), path: path(), into: &nameViolations)
                for violation in nameViolations {
                    violations.append(
                        .init(
                            keyword: .propertyNames,
                            path: "\(path()).\(member.key)",
                            message: "the property name: \(violation.message)"
                        )
                    )
                }
            }
        }
        for dependency in keywords.requiredDependencies where members.contains(where: { $0.key == dependency.trigger })
        {
            for name in dependency.required where !members.contains(where: { $0.key == name }) {
                violations.append(
                    .init(
                        keyword: dependency.keyword,
                        path: "\(path()).\(name)",
                        message: "is required when \(dependency.trigger) is present"
                    )
                )
            }
        }
        for (trigger, schema) in keywords.schemaDependencies where members.contains(where: { $0.key == trigger }) {
            schema.validate(.object(members), path: path(), into: &violations)
        }
    }
}
