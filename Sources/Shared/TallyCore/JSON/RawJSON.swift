/// A JSON value kept exactly as it was sent: its text, byte for byte.
///
/// Property values that tally's scalar cases cannot hold without rewriting them (objects, arrays,
/// numbers written in a form other than tally's own, such as `25.00`, `1e3` or integers beyond
/// 64 bits) travel as raw JSON, so the file store writes back the bytes that came in and
/// PostgreSQL's `jsonb` reads the same value.
///
/// No tree is built when the value is read: the text is checked as it is scanned, and its
/// ``Shape`` (nesting, value count, longest string) recorded, which is what the size limits need.
/// Schemas validate the text directly where they can; ``value`` parses it on demand. (Building
/// the tree for every nested value was a third of the cost of reading a Segment `Order Completed`
/// call with three products.)
///
/// An immutable class, so that ``PropertyValue`` stays as small as its scalar cases make it (one
/// pointer here instead of a string and a tree): every event's property values are copied, and
/// a larger enum made scalar-only validation measurably slower.
public final class RawJSON: Hashable, Sendable, CustomStringConvertible {
    /// What a scan of the text found, for limits and type checks without parsing it again.
    package struct Shape: Sendable, Hashable {
        /// The type of the value.
        package var kind: Kind = .null
        /// The deepest nesting of objects and arrays (0 for a scalar, 1 for a flat object).
        package var depth: Int32 = 0
        /// Every value inside, the value itself included.
        package var values: Int32 = 0
        /// The longest string value, in UTF-8 bytes once unescaped.
        package var longestString: Int32 = 0
        /// The longest object key, in UTF-8 bytes once unescaped.
        package var longestKey: Int32 = 0

        package init() {}

        /// The shape of one number.
        package init(number: Void) {
            kind = .number
            values = 1
        }

        /// The JSON type of a value.
        package enum Kind: UInt8, Sendable {
            case null, bool, number, string, array, object
        }
    }

    /// The JSON text as sent (valid RFC 8259; whitespace inside it included).
    public let text: String
    /// What the scan of ``text`` found.
    package let shape: Shape

    /// Wraps text already validated as one JSON value, with its shape.
    package init(validatedText text: String, shape: Shape) {
        self.text = text
        self.shape = shape
    }

    /// A value written in tally's compact form.
    public convenience init(_ value: JSONValue) {
        let text = JSONWriter.text(value)
        var scanned = text
        let shape = scanned.withUTF8 { bytes in
            var parser = JSONParser(bytes: bytes, maxDepth: .max)
            return (try? parser.scanShape()) ?? Shape()
        }
        self.init(validatedText: text, shape: shape)
    }

    /// The value, parsed from ``text`` (each call parses it again).
    public var value: JSONValue {
        var text = text
        return text.withUTF8 { bytes in (try? JSONParser.parse(bytes, maxDepth: .max)) ?? .null }
    }

    /// The JSON type name of the value: `object`, `array`, `number`, …
    public var typeName: String {
        switch shape.kind {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Equal text.
    public static func == (lhs: RawJSON, rhs: RawJSON) -> Bool {
        lhs === rhs || lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        for byte in text.utf8 { hasher.combine(byte) }
    }

    public var description: String { text }
}
