public import TallyCore

extension JSONSchema {
    /// Every way `value` fails this schema; empty when valid.
    public func violations(of value: JSONValue, path: String = "$") -> [SchemaViolation] {
        var violations: [SchemaViolation] = []
        validate(value, path: path, into: &violations)
        return violations
    }

    /// Whether `value` satisfies this schema.
    public func accepts(_ value: JSONValue) -> Bool {
        violations(of: value).isEmpty
    }

    func validate(_ value: JSONValue, path: @autoclosure () -> String, into violations: inout [SchemaViolation]) {
        if rejectsEverything {
            violations.append(.init(keyword: .falseSchema, path: path(), message: "no value is allowed here"))
            return
        }
        if hasApplicators, let reference {
            reference.target.validate(value, path: path(), into: &violations)
            return
        }
        if let types, !types.contains(where: { Self.value(value, hasType: $0) }) {  // not hot: suite and lint
            let expected = types.map(\.rawValue).sorted().joined(separator: " or ")
            violations.append(
                .init(keyword: .type, path: path(), message: "expected \(expected), got \(value.typeName)")
            )
        }
        if let enumValues, !enumValues.contains(where: { Self.jsonEqual($0, value) }) {
            violations.append(.init(keyword: .enum, path: path(), message: "not one of the allowed values"))
        }
        if let constValue, !Self.jsonEqual(constValue, value) {
            violations.append(.init(keyword: .const, path: path(), message: "not the required constant"))
        }
        switch value {
        case .string(let string): validateString(string, path: path(), into: &violations)
        case .number(let number): validateNumber(number.doubleValue, path: path(), into: &violations)
        case .object(let members): validateObject(members, path: path(), into: &violations)
        default: break
        }
        if hasApplicators { validateApplicators(value, path: path(), into: &violations) }
    }

    // The keywords added since the scalar subset stay out of line: `validate` and
    // `validateObject` are on every value's path, and their code would slow the checks most
    // schemas use.
    @inline(never)
    private func validateApplicators(
        _ value: JSONValue,
        path: @autoclosure () -> String,
        into violations: inout [SchemaViolation]
    ) {
        switch value {
        case .number(let number):
            if let multipleOf, !multipleOf.divides(number) {
                violations.append(
                    .init(keyword: .multipleOf, path: path(), message: "must be a multiple of \(multipleOf.text)")
                )
            }
        case .array(let elements): validateArray(elements, path: path(), into: &violations)
        default: break
        }
        if let composition { validateComposition(value, path: path(), composition: composition, into: &violations) }
    }

    func validateString(_ string: String, path: @autoclosure () -> String, into violations: inout [SchemaViolation]) {
        if minLength != nil || maxLength != nil {
            let length = string.unicodeScalars.count
            if let minLength, length < minLength {
                violations.append(.init(keyword: .minLength, path: path(), message: "shorter than \(minLength)"))
            }
            if let maxLength, length > maxLength {
                violations.append(.init(keyword: .maxLength, path: path(), message: "longer than \(maxLength)"))
            }
        }
        if let pattern, !pattern.matches(string) {
            violations.append(.init(keyword: .pattern, path: path(), message: "does not match \(pattern.source)"))
        }
        if let format, !format.matches(string) {
            violations.append(.init(keyword: .format, path: path(), message: "not a valid \(format.rawValue)"))
        }
    }

    func validateNumber(_ number: Double, path: @autoclosure () -> String, into violations: inout [SchemaViolation]) {
        for bound in lowerBounds where bound.exclusive ? !(number > bound.value) : !(number >= bound.value) {
            let relation = bound.exclusive ? "greater than" : "at least"
            let limit = JSONWriter.numberText(bound.value)
            violations.append(.init(keyword: .minimum, path: path(), message: "must be \(relation) \(limit)"))
        }
        for bound in upperBounds where bound.exclusive ? !(number < bound.value) : !(number <= bound.value) {
            let relation = bound.exclusive ? "less than" : "at most"
            let limit = JSONWriter.numberText(bound.value)
            violations.append(.init(keyword: .maximum, path: path(), message: "must be \(relation) \(limit)"))
        }
    }

    func validateObject(
        _ members: [JSONMember],
        path: @autoclosure () -> String,
        into violations: inout [SchemaViolation]
    ) {
        if hasApplicators, let objectKeywords {
            validateObject(members, path: path(), keywords: objectKeywords, into: &violations)
            return
        }
        validateRequired(members, path: path(), into: &violations)
        for member in members {
            func memberPath() -> String { "\(path()).\(member.key)" }
            if let schema = property(member.key) {
                schema.validate(member.value, path: memberPath(), into: &violations)
                continue
            }
            switch additionalProperties {
            case .allowed: break
            case .forbidden:
                violations.append(
                    .init(keyword: .additionalProperties, path: memberPath(), message: "is not declared in the schema")
                )
            case .schema(let schema): schema.validate(member.value, path: memberPath(), into: &violations)
            }
        }
    }

    func validateRequired(
        _ members: [JSONMember],
        path: @autoclosure () -> String,
        into violations: inout [SchemaViolation]
    ) {
        if !required.isEmpty {
            for name in required where !members.contains(where: { $0.key == name }) {
                violations.append(.init(keyword: .required, path: "\(path()).\(name)", message: "is required"))
            }
        }
    }

    static func value(_ value: JSONValue, hasType type: JSONType) -> Bool {
        switch (type, value) {
        case (.null, .null), (.boolean, .bool), (.object, .object), (.array, .array), (.number, .number),
            (.string, .string):
            return true
        case (.integer, .number(let number)):
            let double = number.doubleValue
            return number.int64Value != nil || (double.isFinite && double == double.rounded())
        default:
            return false
        }
    }
}
