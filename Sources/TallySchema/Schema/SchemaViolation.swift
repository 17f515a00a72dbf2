/// One way a value fails a schema.
public struct SchemaViolation: Hashable, Sendable, CustomStringConvertible {
    /// The keyword that failed.
    public enum Keyword: String, Hashable, Sendable {
        case type, `enum`, const, pattern, format, minimum, maximum, minLength, maxLength, required
        case additionalProperties, falseSchema = "false"
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
