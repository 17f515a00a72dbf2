package import TallyCore

/// `FIELD OP VALUE`: one condition on an event (docs/reports.md, Filters).
package struct ReportFilter: Sendable, Hashable, CustomStringConvertible {
    /// A filter's operator.
    package enum Operator: String, Sendable, Hashable, CaseIterable {
        case equals = "="
        case notEquals = "!="
        case isIn = "in"
        case notIn = "not in"
        case contains
        case greaterThan = ">"
        case greaterOrEqual = ">="
        case lessThan = "<"
        case lessOrEqual = "<="
        case isSet = "is set"
        case isNotSet = "is not set"

        /// Also accepted in saved reports: `eq`, `ne`, `gt`, `gte`, `lt`, `lte`, `not_in`, `is_set`,
        /// `is_not_set`.
        package init?(spelling: String) {
            let aliases: [String: Operator] = [
                "eq": .equals, "ne": .notEquals, "gt": .greaterThan, "gte": .greaterOrEqual, "lt": .lessThan,
                "lte": .lessOrEqual, "not_in": .notIn, "is_set": .isSet, "is_not_set": .isNotSet, "==": .equals,
            ]
            guard let found = Operator(rawValue: spelling) ?? aliases[spelling] else { return nil }
            self = found
        }

        /// Whether it compares numbers.
        package var isNumeric: Bool { [.greaterThan, .greaterOrEqual, .lessThan, .lessOrEqual].contains(self) }
        /// How many values it takes: none, one, or a list.
        package var arity: Arity {
            switch self {
            case .isSet, .isNotSet: .none
            case .isIn, .notIn: .list
            default: .one
            }
        }

        package enum Arity: Sendable { case none, one, list }
    }

    package var field: ReportField
    package var op: Operator
    /// The values as text (a JSON number or boolean as its JSON text).
    package var values: [String]
    /// The values as decimals, where they are numbers.
    private let numbers: [ExactDecimal?]

    package init(field: ReportField, op: Operator, values: [String]) throws(ReportError) {
        self.field = field
        self.op = op
        self.values = values
        numbers = values.map { ExactDecimal(jsonText: $0) }
        switch op.arity {
        case .none:
            guard values.isEmpty else { throw ReportError(.invalidValue, path: "", "\(op.rawValue) takes no value") }
        case .one:
            guard values.count == 1 else { throw ReportError(.missing, path: "", "\(op.rawValue) takes one value") }
        case .list:
            guard !values.isEmpty else {
                throw ReportError(.missing, path: "", "\(op.rawValue) takes a list of values")
            }
        }
        if op.isNumeric, numbers[0] == nil {
            throw ReportError(
                .invalidValue,
                path: "",
                "\(field) \(op.rawValue) \(values[0].debugDescription): \(op.rawValue) compares numbers"
            )
        }
    }

    package static func == (lhs: ReportFilter, rhs: ReportFilter) -> Bool {
        lhs.field == rhs.field && lhs.op == rhs.op && lhs.values == rhs.values
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(field)
        hasher.combine(op)
        hasher.combine(values)
    }

    /// `position < 3`, `platform in (ios, android)`, `coupon is set`.
    package var description: String {
        let field = self.field.description
        switch op.arity {
        case .none: return "\(field) \(op.rawValue)"
        case .one: return "\(field) \(op.rawValue) \(Self.quotedIfNeeded(values[0]))"
        case .list: return "\(field) \(op.rawValue) (\(values.map(Self.quotedIfNeeded).joined(separator: ", ")))"
        }
    }

    private static func quotedIfNeeded(_ value: String) -> String {
        let plain = !value.isEmpty && value.allSatisfy { !$0.isWhitespace && !",()'\"".contains($0) }
        return plain ? value : "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// Whether `event` matches.
    package func matches(_ event: EventEnvelope) -> Bool {
        let value = field.value(in: event)
        switch op {
        case .isSet: return value != nil
        case .isNotSet: return value == nil
        case .equals: return value.map { equals($0, 0) } ?? false
        case .notEquals: return !(value.map { equals($0, 0) } ?? false)
        case .isIn: return value.map { value in values.indices.contains { equals(value, $0) } } ?? false
        case .notIn: return !(value.map { value in values.indices.contains { equals(value, $0) } } ?? false)
        case .contains:
            if case .string(let string)? = value { return string.contains(values[0]) }
            return false
        case .greaterThan, .greaterOrEqual, .lessThan, .lessOrEqual:
            guard let number = value?.exactDecimal, let operand = numbers[0] else { return false }
            switch op {
            case .greaterThan: return operand < number
            case .greaterOrEqual: return !(number < operand)
            case .lessThan: return number < operand
            default: return !(operand < number)
            }
        }
    }

    /// `=`: a string equal to the value; a number equal to it as a decimal; a boolean spelled so.
    private func equals(_ value: PropertyValue, _ index: Int) -> Bool {
        switch value {
        case .string(let string): return string == values[index]
        case .bool(let bool): return (bool ? "true" : "false") == values[index]
        case .integer, .number, .json:
            if value.isStructured { return false }
            guard let number = value.exactDecimal, let operand = numbers[index] else { return false }
            return number == operand
        case .null: return false
        }
    }
}
