/// One way a value fails a schema.
public struct SchemaViolation: Hashable, Sendable, CustomStringConvertible {
    /// The keyword that failed; the raw value is the keyword's name (`false` for a `false` schema).
    ///
    /// `exclusiveMinimum` and `exclusiveMaximum` report as `minimum` and `maximum`. Keywords that
    /// apply subschemas to parts of the value (`items`, `properties`, `patternProperties`,
    /// `allOf`, `then`, `else`, `$ref`, schema dependencies, …) report their subschemas'
    /// violations, at the paths of the parts that failed.
    public enum Keyword: String, Hashable, Sendable {
        case type, `enum`, const, pattern, format, minimum, maximum, minLength, maxLength, required
        case additionalProperties, falseSchema = "false"
        case multipleOf
        case additionalItems, minItems, maxItems, uniqueItems, contains
        case propertyNames, minProperties, maxProperties, dependencies, dependentRequired
        case anyOf, oneOf, not
    }

    /// The keyword that failed.
    public var keyword: Keyword
    /// Where in the value (`$.position`).
    public var path: String
    /// A human explanation, safe to show: it names the rule, not the value.
    public var message: String

    /// Creates a violation.
    public init(keyword: Keyword, path: String, message: String) {
        self.keyword = keyword
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
