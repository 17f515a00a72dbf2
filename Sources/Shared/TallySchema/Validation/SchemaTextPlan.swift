package import TallyCore

/// A schema compiled for checking raw JSON text without parsing it into a tree: the fast path for
/// nested property values (a cart's `products[]`).
///
/// The schema's keywords become flat tables of plain values (nodes, member names as bytes), so
/// the walk touches no class and retains nothing: walking the ``JSONSchema`` classes themselves
/// cost ~500 instructions a member in retains, releases and tuple copies.
///
/// It answers only "certainly valid". Anything it does not decide by itself (a violation, a
/// keyword outside the common subset, an escaped string under a string keyword, a number that is
/// an integer only in value such as `2.0`) answers false, and the caller validates the parsed
/// value, which names each violation with its path. So this path can only be faster, never
/// different.
///
/// Decided here: `type`, `properties`, `required`, `additionalProperties`, `items` (one schema),
/// `minItems`, `maxItems`, `minimum` / `maximum` (both kinds), `minLength`, `maxLength`,
/// `pattern`, `format`, local `$ref` (recursion included). Everything else defers.
///
/// A class: the validator hands one out per nested property, and a struct of four arrays cost
/// four retains and releases each time (~11 % of validating a five-property event).
package final class SchemaTextPlan: Sendable {
    private let nodes: [Node]
    private let members: [Member]
    private let names: [UInt8]
    /// Schemas whose `pattern` or `format` a string must match: read only for such strings.
    private let textSchemas: [JSONSchema]
    private let root: Int32

    /// What one schema requires of a value, for each JSON type it may have.
    struct Node {
        /// Defers everything: a keyword outside the subset.
        var defers = false
        /// `type` as ``JSONSchema/JSONType`` bits; 0 for any type.
        var typeMask: UInt8 = 0
        // Objects.
        var requiredMask: UInt64 = 0
        var firstMember: Int32 = 0
        var memberCount: Int32 = 0
        /// A node index, or ``allowed`` / ``forbidden``.
        var additional: Int32 = allowed
        // Arrays.
        var items: Int32 = allowed
        var minItems = 0
        var maxItems = Int.max
        // Strings.
        var minLength = 0
        var maxLength = Int.max
        var textSchema: Int32 = -1
        // Numbers.
        var hasBounds = false
        var lower = -Double.infinity
        var lowerExclusive = false
        var upper = Double.infinity
        var upperExclusive = false
    }

    struct Member {
        var nameStart: Int32
        var nameCount: Int32
        var node: Int32
        /// No quote, backslash or control character in the name: the text of a key with this
        /// name is the name itself.
        var isPlain: Bool
    }

    static let allowed: Int32 = -1
    static let forbidden: Int32 = -2

    /// Compiles `schema`.
    package init(_ schema: JSONSchema) {
        var builder = Builder()
        var compiled: [ObjectIdentifier: Int32] = [:]
        root = builder.compile(schema, &compiled)
        nodes = builder.nodes
        members = builder.members
        names = builder.names
        textSchemas = builder.textSchemas
    }

    /// Whether `raw` certainly satisfies the schema.
    package func accepts(_ raw: RawJSON) -> Bool {
        let result = raw.text.utf8.withContiguousStorageIfAvailable { bytes in
            walking(bytes) { walk in
                walk.skipWhitespace()
                return walk.accepts(root)
            }
        }
        return result ?? false
    }

    /// Whether properties kept in their text certainly satisfy the schema (an object schema) and
    /// stay as they are when the validator checks them without normalizing strings: false also
    /// where it would convert one (a number spelled `2.0` where `integer` is declared becomes `2`).
    package func acceptsProperties(_ text: PropertyText) -> Bool {
        text.withMembers { bytes, properties in
            walking(bytes) { walk in walk.acceptsProperties(root, properties) }
        }
    }

    /// A walk of `bytes` over this plan's tables.
    @inline(__always)
    private func walking<Result>(
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ body: (inout SchemaTextWalk) -> Result
    ) -> Result {
        nodes.withUnsafeBufferPointer { nodes in
            members.withUnsafeBufferPointer { members in
                names.withUnsafeBufferPointer { names in
                    var walk = SchemaTextWalk(
                        bytes: bytes,
                        nodes: nodes,
                        members: members,
                        names: names,
                        textSchemas: textSchemas
                    )
                    return body(&walk)
                }
            }
        }
    }
}
