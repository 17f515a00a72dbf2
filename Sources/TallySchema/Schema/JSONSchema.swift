public import TallyCore

/// A compiled JSON Schema in tally's supported subset: immutable, `Sendable`, patterns and formats
/// resolved once.
///
/// Keywords: `type`, `enum`, `const`, `pattern`, `format` (see ``SchemaFormat``), `minimum`,
/// `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (draft-07 numbers or draft-04 booleans),
/// `minLength`, `maxLength`, `required`, `properties`, `additionalProperties`; the annotations
/// `$schema`, `$id`, `id`, `$comment`, `title`, `description`, `default`, `examples`; and boolean
/// schemas. Anything else is refused by ``SchemaCompiler`` with its path, never ignored.
public final class JSONSchema: Sendable {
    /// The JSON types a `type` keyword can name.
    public enum JSONType: String, Sendable, Hashable, CaseIterable {
        case null, boolean, object, array, number, integer, string
    }

    /// `additionalProperties`.
    public enum AdditionalProperties: Sendable {
        case allowed
        case forbidden
        case schema(JSONSchema)
    }

    /// A numeric bound.
    public struct Bound: Sendable, Hashable {
        /// The limit.
        public var value: Double
        /// Whether the limit itself is excluded.
        public var exclusive: Bool
    }

    /// `false` as a schema: nothing is valid.
    public let rejectsEverything: Bool
    /// `type`, nil when absent.
    public let types: Set<JSONType>?
    /// `enum`.
    public let enumValues: [JSONValue]?
    /// `const`.
    public let constValue: JSONValue?
    /// `pattern`.
    public let pattern: Pattern?
    /// `format`.
    public let format: SchemaFormat?
    /// `minimum` / `exclusiveMinimum`, the tighter one.
    public let lowerBounds: [Bound]
    /// `maximum` / `exclusiveMaximum`.
    public let upperBounds: [Bound]
    /// `minLength`, in Unicode scalars.
    public let minLength: Int?
    /// `maxLength`, in Unicode scalars.
    public let maxLength: Int?
    /// `required`.
    public let required: [String]
    /// `properties`, in document order.
    public let properties: [(name: String, schema: JSONSchema)]
    /// `additionalProperties`.
    public let additionalProperties: AdditionalProperties
    /// `description`.
    public let description: String?
    /// The schema as written (for `tally schema show`).
    public let source: JSONValue

    private let propertyIndex: [String: JSONSchema]

    init(
        rejectsEverything: Bool = false,
        types: Set<JSONType>? = nil,
        enumValues: [JSONValue]? = nil,
        constValue: JSONValue? = nil,
        pattern: Pattern? = nil,
        format: SchemaFormat? = nil,
        lowerBounds: [Bound] = [],
        upperBounds: [Bound] = [],
        minLength: Int? = nil,
        maxLength: Int? = nil,
        required: [String] = [],
        properties: [(name: String, schema: JSONSchema)] = [],
        additionalProperties: AdditionalProperties = .allowed,
        description: String? = nil,
        source: JSONValue
    ) {
        self.rejectsEverything = rejectsEverything
        self.types = types
        self.enumValues = enumValues
        self.constValue = constValue
        self.pattern = pattern
        self.format = format
        self.lowerBounds = lowerBounds
        self.upperBounds = upperBounds
        self.minLength = minLength
        self.maxLength = maxLength
        self.required = required
        self.properties = properties
        self.additionalProperties = additionalProperties
        self.description = description
        self.source = source
        propertyIndex = Dictionary(properties.map { ($0.name, $0.schema) }, uniquingKeysWith: { first, _ in first })
    }

    /// The schema of property `name`, if declared.
    public func property(_ name: String) -> JSONSchema? { propertyIndex[name] }
}
