/// A JSON value kept exactly as it was sent: its text, byte for byte, and its parsed form.
///
/// Property values that tally's scalar cases cannot hold without rewriting them (objects, arrays,
/// numbers written in a form other than tally's own, such as `25.00`, `1e3` or integers beyond
/// 64 bits) travel as raw JSON, so the file store writes back the bytes that came in and
/// PostgreSQL's `jsonb` reads the same value. The parsed form is what schemas validate.
///
/// An immutable class, so that ``PropertyValue`` stays as small as its scalar cases make it (one
/// pointer here instead of a string and a tree): every event's property values are copied, and
/// a larger enum made scalar-only validation measurably slower.
public final class RawJSON: Hashable, Sendable, CustomStringConvertible {
    /// The JSON text as sent (valid RFC 8259; whitespace inside it included).
    public let text: String
    /// The same value, parsed.
    public let value: JSONValue

    /// Wraps text already validated as one JSON value, and its parsed form.
    package init(validatedText text: String, value: JSONValue) {
        self.text = text
        self.value = value
    }

    /// A value written in tally's compact form.
    public convenience init(_ value: JSONValue) {
        self.init(validatedText: JSONWriter.text(value), value: value)
    }

    /// The JSON type name of the value: `object`, `array`, `number`, …
    public var typeName: String { value.typeName }

    /// Equal text; the parsed forms follow from it.
    public static func == (lhs: RawJSON, rhs: RawJSON) -> Bool {
        lhs === rhs || lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        for byte in text.utf8 { hasher.combine(byte) }
    }

    public var description: String { text }
}
