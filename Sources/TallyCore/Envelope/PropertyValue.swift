/// One property value: a JSON scalar.
///
/// Events from `TrackingEventContract` carry strings; NDJSON input carries any scalar. The
/// tracking plan declares each property's type and validation normalizes values to it; types are
/// never inferred from the data.
public enum PropertyValue: Hashable, Sendable {
    case string(String)
    case integer(Int64)
    case number(Double)
    case bool(Bool)
    case null
}

extension PropertyValue: CustomStringConvertible {
    /// The value as text: strings as they are, numbers and booleans as JSON writes them.
    public var description: String {
        switch self {
        case .string(let value): value
        case .integer(let value): String(value)
        case .number(let value): JSONWriter.numberText(value)
        case .bool(let value): value ? "true" : "false"
        case .null: "null"
        }
    }
}

extension PropertyValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
}
