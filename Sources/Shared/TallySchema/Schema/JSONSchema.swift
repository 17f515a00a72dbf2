public import TallyCore

/// A compiled JSON Schema (draft-04 or draft-07): immutable, `Sendable`, patterns, formats and
/// local `$ref`s resolved once.
///
/// Keywords: `type`, `enum`, `const`, `pattern`, `format` (the formats `SchemaFormat` lists), `minimum`,
/// `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (draft-07 numbers or draft-04 booleans),
/// `multipleOf`, `minLength`, `maxLength`; `items` (one schema or a tuple), `additionalItems`,
/// `minItems`, `maxItems`, `uniqueItems`, `contains`; `required`, `properties`,
/// `patternProperties`, `additionalProperties`, `propertyNames`, `minProperties`, `maxProperties`,
/// `dependencies` (and the 2019-09 `dependentRequired` / `dependentSchemas`); `allOf`, `anyOf`,
/// `oneOf`, `not`, `if` / `then` / `else`; `$ref` to a JSON pointer or a plain-name `$id` within
/// the document, with `definitions` / `$defs`; the annotations `$schema`, `$id`, `id`, `$comment`,
/// `title`, `description`, `default`, `examples`; and boolean schemas. Anything else is refused by
/// the schema compiler with its path, never ignored.
///
/// A recursive schema (a `$ref` back to an enclosing schema) is a reference cycle: it lives as
/// long as the process. Compile schemas once, when a registry loads, not per event.
///
/// Read it as written through ``source``, ``properties`` and ``required``, and validate with
/// ``violations(of:path:)`` or ``accepts(_:)``; the compiled form of the other keywords is tally's own.
public final class JSONSchema: Sendable {
    /// The JSON types a `type` keyword can name.
    package enum JSONType: String, Sendable, Hashable, CaseIterable {
        case null, boolean, object, array, number, integer, string

        var bit: UInt8 {
            switch self {
            case .null: 1
            case .boolean: 2
            case .object: 4
            case .array: 8
            case .number: 16
            case .integer: 32
            case .string: 64
            }
        }
    }

    /// `additionalProperties`.
    package enum AdditionalProperties: Sendable {
        case allowed
        case forbidden
        case schema(JSONSchema)
    }

    /// A numeric bound.
    package struct Bound: Sendable, Hashable {
        /// The limit.
        package var value: Double
        /// Whether the limit itself is excluded.
        package var exclusive: Bool
    }

    /// `false` as a schema: nothing is valid.
    package let rejectsEverything: Bool
    /// `type`, nil when absent.
    package let types: Set<JSONType>?
    /// `enum`.
    package let enumValues: [JSONValue]?
    /// `const`.
    package let constValue: JSONValue?
    /// `pattern`.
    package let pattern: Pattern?
    /// `format`.
    package let format: SchemaFormat?
    /// `minimum` / `exclusiveMinimum`, the tighter one.
    package let lowerBounds: [Bound]
    /// `maximum` / `exclusiveMaximum`.
    package let upperBounds: [Bound]
    /// `minLength`, in Unicode scalars.
    package let minLength: Int?
    /// `maxLength`, in Unicode scalars.
    package let maxLength: Int?
    /// `required`.
    public let required: [String]
    /// `properties`, in document order.
    public let properties: [(name: String, schema: JSONSchema)]
    /// `additionalProperties`.
    package let additionalProperties: AdditionalProperties
    /// `description`.
    public let description: String?
    /// The schema as written (for `tally schema show`).
    public let source: JSONValue

    /// Whether the schema uses only the keywords the scalar fast path checks: `type`, `enum`,
    /// `const`, `pattern`, `format`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
    /// `minLength`, `maxLength` (and annotations). False for `false`, and for any array, object,
    /// composition or `$ref` keyword and `multipleOf`: such a schema must be checked with
    /// ``violations(of:path:)`` against the whole value, or a keyword would be skipped.
    package let isScalarOnly: Bool

    /// `multipleOf`.
    let multipleOf: SchemaDivisor?
    /// The array keywords, nil when the schema has none.
    let arrayKeywords: ArrayKeywords?
    /// `patternProperties`, `propertyNames`, the property counts and dependencies; nil when none.
    let objectKeywords: ObjectKeywords?
    /// `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`; nil when none.
    let composition: Composition?
    /// `$ref`: then every other keyword of the schema is ignored (draft-04 and draft-07 rule).
    let reference: SchemaReference?
    /// Whether any of ``multipleOf``, ``reference``, ``composition``, ``arrayKeywords``,
    /// ``objectKeywords`` is set: one test keeps them off the path of schemas that have none.
    let hasApplicators: Bool

    private let propertyIndex: [String: JSONSchema]
    /// ``properties`` in key byte order (the storage order of event properties), each with
    /// whether it is required: validation walks this once instead of searching per key.
    let sortedProperties: [(name: String, schema: JSONSchema, isRequired: Bool)]
    /// ``types`` as bits (JSONType.allCases order), so hot paths test membership without hashing.
    let typeMask: UInt8
    /// `required` as bits over the indices of ``properties``; nil when a required name is not
    /// declared there or there are more than 64 properties (then only the parsed path checks it).
    let requiredMask: UInt64?

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
        multipleOf: SchemaDivisor? = nil,
        arrayKeywords: ArrayKeywords? = nil,
        objectKeywords: ObjectKeywords? = nil,
        composition: Composition? = nil,
        reference: SchemaReference? = nil,
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
        self.multipleOf = multipleOf
        self.arrayKeywords = arrayKeywords
        self.objectKeywords = objectKeywords
        self.composition = composition
        self.reference = reference
        self.description = description
        self.source = source
        hasApplicators =
            multipleOf != nil || reference != nil || composition != nil || arrayKeywords != nil || objectKeywords != nil
        var isAdditionalAllowed = false
        if case .allowed = additionalProperties { isAdditionalAllowed = true }
        isScalarOnly =
            !rejectsEverything && !hasApplicators && required.isEmpty && properties.isEmpty && isAdditionalAllowed
        propertyIndex = Dictionary(properties.map { ($0.name, $0.schema) }, uniquingKeysWith: { first, _ in first })
        typeMask = types.map { set in set.reduce(0) { $0 | $1.bit } } ?? 0
        var requiredMask: UInt64? = properties.count <= 64 && types?.isEmpty != true ? 0 : nil
        for name in required {
            guard let index = properties.firstIndex(where: { $0.name == name }) else {
                requiredMask = nil
                break
            }
            requiredMask? |= 1 << UInt64(index)
        }
        self.requiredMask = requiredMask
        sortedProperties = properties.map { (name: $0.name, schema: $0.schema, isRequired: required.contains($0.name)) }
            .sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    /// The schema of property `name`, if declared.
    public func property(_ name: String) -> JSONSchema? {
        // A tracking plan's events have a handful of properties: comparing a few short strings
        // is cheaper than hashing one.
        if properties.count <= 16 {
            for property in properties where property.name == name { return property.schema }
            return nil
        }
        return propertyIndex[name]
    }

    /// Whether `type` is among the declared ``types``.
    @inline(__always)
    func declares(_ type: JSONType) -> Bool { typeMask & type.bit != 0 }
}
