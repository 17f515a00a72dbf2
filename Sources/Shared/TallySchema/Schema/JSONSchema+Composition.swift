import TallyCore

extension JSONSchema {
    /// `allOf`, `anyOf`, `oneOf`, `not`, `if` / `then` / `else`: subschemas applied to the same value.
    final class Composition: Sendable {
        let allOf: [JSONSchema]
        let anyOf: [JSONSchema]
        let oneOf: [JSONSchema]
        let not: JSONSchema?
        /// `if`; `then` and `else` are kept only with it (alone they do nothing).
        let condition: JSONSchema?
        let then: JSONSchema?
        let otherwise: JSONSchema?

        init(
            allOf: [JSONSchema],
            anyOf: [JSONSchema],
            oneOf: [JSONSchema],
            not: JSONSchema?,
            condition: JSONSchema?,
            then: JSONSchema?,
            otherwise: JSONSchema?
        ) {
            self.allOf = allOf
            self.anyOf = anyOf
            self.oneOf = oneOf
            self.not = not
            self.condition = condition
            self.then = then
            self.otherwise = otherwise
        }

        /// The subschemas that apply to the value itself (not to its items or properties).
        var inPlaceSubschemas: [JSONSchema] {
            allOf + anyOf + oneOf + [not, condition, then, otherwise].compactMap { $0 }
        }
    }

    @inline(never)
    func validateComposition(
        _ value: JSONValue,
        path: @autoclosure () -> String,
        composition: Composition,
        into violations: inout [SchemaViolation]
    ) {
        for schema in composition.allOf {
            schema.validate(value, path: path(), into: &violations)
        }
        let anyOf = composition.anyOf
        if !anyOf.isEmpty, !anyOf.contains(where: { $0.isValid(value, path: path()) }) {
            violations.append(
                .init(keyword: .anyOf, path: path(), message: "matches none of the \(anyOf.count) schemas in anyOf")
            )
        }
        let oneOf = composition.oneOf
        if !oneOf.isEmpty {
            var matches = 0
            for schema in oneOf where schema.isValid(value, path: path()) {
                matches += 1
                if matches > 1 { break }
            }
            if matches != 1 {
                let how = matches == 0 ? "none" : "more than one"
                violations.append(
                    .init(
                        keyword: .oneOf,
                        path: path(),
                        message: "matches \(how) of the \(oneOf.count) schemas in oneOf, exactly one is required"
                    )
                )
            }
        }
        if let not = composition.not, not.isValid(value, path: path()) {
            violations.append(.init(keyword: .not, path: path(), message: "matches the schema in not"))
        }
        if let condition = composition.condition {
            let branch = condition.isValid(value, path: path()) ? composition.then : composition.otherwise
            branch?.validate(value, path: path(), into: &violations)
        }
    }

    /// Whether `value` satisfies this schema; for the keywords that only need a verdict.
    func isValid(_ value: JSONValue, path: @autoclosure () -> String) -> Bool {
        // Empty arrays do not allocate: a passing subschema costs nothing here.
        var scratch: [SchemaViolation] = []
        validate(value, path: path(), into: &scratch)
        return scratch.isEmpty
    }
}
