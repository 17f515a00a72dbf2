/// The Swift type of a property, as the generator declares it.
indirect enum SwiftType: Hashable, Sendable {
    case string
    case int
    case double
    case bool
    /// A generated enum of the plan's `enum` values (by its name in the enclosing type).
    case enumeration(name: String, raw: EnumRawType)
    /// A generated struct of a nested object.
    case structure(name: String)
    case array(SwiftType)
    /// A schema no single Swift type expresses (type lists, `anyOf`): a `String`, sent as written.
    case fallback
    /// An object without declared properties, or an array without one item schema: a `String` of
    /// JSON text, sent as the value it holds.
    case jsonText

    /// The type as Swift source.
    var spelling: String {
        switch self {
        case .string, .fallback, .jsonText: "String"
        case .int: "Int"
        case .double: "Double"
        case .bool: "Bool"
        case .enumeration(let name, _), .structure(let name): name
        case .array(let element): "[\(element.spelling)]"
        }
    }
}

/// The raw values of a generated enum.
enum EnumRawType: String, Hashable, Sendable {
    case string = "String"
    case int = "Int"
    case double = "Double"
}

/// One stored value of an event case or a nested struct: a plan property.
struct SwiftField: Hashable, Sendable {
    /// The Swift name (`episodeID`), unescaped.
    var identifier: String
    /// The plan's key (`episode_id`).
    var key: String
    var type: SwiftType
    /// Not required by the plan: optional, left out of the properties when nil.
    var isOptional: Bool
    /// Doc comment lines (without `///`).
    var documentation: [String]
}

/// A type the generator declares inside an event enum or a struct.
enum NestedDeclaration: Hashable, Sendable {
    case enumeration(EnumDeclaration)
    case structure(StructDeclaration)

    var name: String {
        switch self {
        case .enumeration(let declaration): declaration.name
        case .structure(let declaration): declaration.name
        }
    }
}

/// `enum Source: String { case list … }`.
struct EnumDeclaration: Hashable, Sendable {
    struct Case: Hashable, Sendable {
        /// The Swift name, unescaped.
        var identifier: String
        /// The raw value as Swift source (`"deep_link"`, `0.5`).
        var rawLiteral: String
        /// Whether the raw value must be written (it differs from the case name).
        var needsRawValue: Bool
    }

    var name: String
    var documentation: [String]
    var raw: EnumRawType
    var cases: [Case]
}

/// `struct Product { var sku: String … }`, for a nested object.
struct StructDeclaration: Hashable, Sendable {
    var name: String
    var documentation: [String]
    var fields: [SwiftField]
    var nested: [NestedDeclaration]
}
