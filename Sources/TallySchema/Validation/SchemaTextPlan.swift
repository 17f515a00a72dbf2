package import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

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
    private struct Node {
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

    private struct Member {
        var nameStart: Int32
        var nameCount: Int32
        var node: Int32
    }

    private static let allowed: Int32 = -1
    private static let forbidden: Int32 = -2

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
                        walk.skipWhitespace()
                        return walk.accepts(root)
                    }
                }
            }
        }
        return result ?? false
    }

    // MARK: Compiling

    /// The tables, as they grow while the schema is compiled.
    private struct Builder {
        var nodes: [Node] = []
        var members: [Member] = []
        var names: [UInt8] = []
        var textSchemas: [JSONSchema] = []

        mutating func compile(_ schema: JSONSchema, _ compiled: inout [ObjectIdentifier: Int32]) -> Int32 {
            if let index = compiled[ObjectIdentifier(schema)] { return index }
            if schema.hasApplicators, let reference = schema.reference {
                // Draft-07 `$ref` replaces its siblings: the target's node stands for it. While the
                // target compiles, a deferring node does, so a cycle of bare `$ref`s ends (unsure).
                var deferring = Node()
                deferring.defers = true
                compiled[ObjectIdentifier(schema)] = Int32(nodes.count)
                nodes.append(deferring)
                let target = compile(reference.target, &compiled)
                compiled[ObjectIdentifier(schema)] = target
                return target
            }
            let index = Int32(nodes.count)
            nodes.append(Node())
            compiled[ObjectIdentifier(schema)] = index
            nodes[Int(index)] = node(for: schema, &compiled)
            return index
        }

        private mutating func node(for schema: JSONSchema, _ compiled: inout [ObjectIdentifier: Int32]) -> Node {
            var node = Node()
            if schema.rejectsEverything || schema.enumValues != nil || schema.constValue != nil
                || schema.types?.isEmpty == true
                || (schema.hasApplicators
                    && (schema.multipleOf != nil || schema.composition != nil || schema.objectKeywords != nil))
            {
                node.defers = true
                return node
            }
            node.typeMask = schema.typeMask
            // Objects: a required name must be declared, and there may be at most 64 of them.
            guard let requiredMask = schema.requiredMask, schema.properties.count <= 64 else {
                node.defers = true
                return node
            }
            node.requiredMask = requiredMask
            node.firstMember = Int32(members.count)
            node.memberCount = Int32(schema.properties.count)
            let first = members.count
            for property in schema.properties {
                members.append(
                    Member(nameStart: Int32(names.count), nameCount: Int32(property.name.utf8.count), node: 0)
                )
                names.append(contentsOf: property.name.utf8)
            }
            for (offset, property) in schema.properties.enumerated() {
                let child = compile(property.schema, &compiled)
                members[first + offset].node = child
            }
            switch schema.additionalProperties {
            case .allowed: node.additional = SchemaTextPlan.allowed
            case .forbidden: node.additional = SchemaTextPlan.forbidden
            case .schema(let additional): node.additional = compile(additional, &compiled)
            }
            // Arrays.
            if let keywords = schema.arrayKeywords {
                if keywords.uniqueItems || keywords.contains != nil {
                    node.defers = true
                    return node
                }
                switch keywords.items {
                case nil: break
                case .every(let items)?: node.items = compile(items, &compiled)
                case .tuple?:
                    node.defers = true
                    return node
                }
                node.minItems = keywords.minItems ?? 0
                node.maxItems = keywords.maxItems ?? .max
            }
            // Strings.
            node.minLength = schema.minLength ?? 0
            node.maxLength = schema.maxLength ?? .max
            if schema.pattern != nil || schema.format != nil {
                node.textSchema = Int32(textSchemas.count)
                textSchemas.append(schema)
            }
            // Numbers: one bound each way is the common case; more defer.
            guard schema.lowerBounds.count <= 1, schema.upperBounds.count <= 1 else {
                node.defers = true
                return node
            }
            if let bound = schema.lowerBounds.first {
                node.hasBounds = true
                node.lower = bound.value
                node.lowerExclusive = bound.exclusive
            }
            if let bound = schema.upperBounds.first {
                node.hasBounds = true
                node.upper = bound.value
                node.upperExclusive = bound.exclusive
            }
            return node
        }

    }

    // MARK: Walking

    /// One walk over a value's text; the tables are borrowed for its length.
    private struct SchemaTextWalk {
        let bytes: UnsafeBufferPointer<UInt8>
        let nodes: UnsafeBufferPointer<Node>
        let members: UnsafeBufferPointer<Member>
        let names: UnsafeBufferPointer<UInt8>
        let textSchemas: [JSONSchema]
        var offset = 0

        /// Consumes the value at the offset; false when not certainly valid (the walk then stops).
        mutating func accepts(_ index: Int32) -> Bool {
            let node = nodes[Int(index)]
            if node.defers { return false }
            let mask = node.typeMask
            switch bytes[offset] {
            case UInt8(ascii: "{"):
                guard mask == 0 || mask & JSONSchema.JSONType.object.bit != 0 else { return false }
                return acceptsObject(node)
            case UInt8(ascii: "["):
                guard mask == 0 || mask & JSONSchema.JSONType.array.bit != 0 else { return false }
                return acceptsArray(node)
            case UInt8(ascii: "\""):
                guard mask == 0 || mask & JSONSchema.JSONType.string.bit != 0 else { return false }
                return acceptsString(node)
            case UInt8(ascii: "t"), UInt8(ascii: "f"):
                guard mask == 0 || mask & JSONSchema.JSONType.boolean.bit != 0 else { return false }
                offset += bytes[offset] == UInt8(ascii: "t") ? 4 : 5
                return true
            case UInt8(ascii: "n"):
                guard mask == 0 || mask & JSONSchema.JSONType.null.bit != 0 else { return false }
                offset += 4
                return true
            default:
                return acceptsNumber(node)
            }
        }

        private mutating func acceptsObject(_ node: Node) -> Bool {
            var seen: UInt64 = 0
            offset += 1
            skipWhitespace()
            if bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                return node.requiredMask == 0
            }
            while true {
                skipWhitespace()
                let keyStart = offset + 1
                guard skipString() else { return false }  // an escaped key: let the parser unescape it
                let keyCount = offset - 1 - keyStart
                skipWhitespace()
                offset += 1  // ':'
                skipWhitespace()
                if let position = member(of: node, named: keyStart, count: keyCount) {
                    seen |= 1 << UInt64(position)
                    guard accepts(members[Int(node.firstMember) + position].node) else { return false }
                } else if node.additional == SchemaTextPlan.allowed {
                    skipValue()
                } else if node.additional == SchemaTextPlan.forbidden || !accepts(node.additional) {
                    return false
                }
                skipWhitespace()
                let next = bytes[offset]
                offset += 1
                if next == UInt8(ascii: "}") { return seen & node.requiredMask == node.requiredMask }
            }
        }

        /// The position among `node`'s declared members of the key at `start`.
        private func member(of node: Node, named start: Int, count: Int) -> Int? {
            let key = bytes.baseAddress! + start
            for position in 0..<Int(node.memberCount) {
                let member = members[Int(node.firstMember) + position]
                if Int(member.nameCount) == count,
                    count == 0 || memcmp(names.baseAddress! + Int(member.nameStart), key, count) == 0
                {
                    return position
                }
            }
            return nil
        }

        private mutating func acceptsArray(_ node: Node) -> Bool {
            var count = 0
            offset += 1
            skipWhitespace()
            if bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                return node.minItems == 0
            }
            while true {
                skipWhitespace()
                if node.items == SchemaTextPlan.allowed {
                    skipValue()
                } else {
                    guard accepts(node.items) else { return false }
                }
                count += 1
                skipWhitespace()
                let next = bytes[offset]
                offset += 1
                if next == UInt8(ascii: "]") { return count >= node.minItems && count <= node.maxItems }
            }
        }

        private mutating func acceptsString(_ node: Node) -> Bool {
            let start = offset + 1
            let plain = skipString()
            guard node.minLength > 0 || node.maxLength < .max || node.textSchema >= 0 else { return true }
            guard plain else { return false }
            let text = UnsafeBufferPointer(rebasing: bytes[start..<offset - 1])
            if node.minLength > 0 || node.maxLength < .max {
                var scalars = 0
                for byte in text where byte & 0xC0 != 0x80 { scalars += 1 }
                if scalars < node.minLength || scalars > node.maxLength { return false }
            }
            if node.textSchema >= 0 {
                let schema = textSchemas[Int(node.textSchema)]
                let string = String(decoding: text, as: UTF8.self)
                if let pattern = schema.pattern, !pattern.matches(string) { return false }
                if let format = schema.format, !format.matches(string) { return false }
            }
            return true
        }

        private mutating func acceptsNumber(_ node: Node) -> Bool {
            let start = offset
            var isInteger = true
            scan: while offset < bytes.count {
                switch bytes[offset] {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"): break
                case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): isInteger = false
                default: break scan
                }
                offset += 1
            }
            let mask = node.typeMask
            if mask != 0, mask & JSONSchema.JSONType.number.bit == 0 {
                // `2.0` is an integer to JSON Schema: the parsed path decides such spellings.
                guard isInteger, mask & JSONSchema.JSONType.integer.bit != 0 else { return false }
            }
            guard node.hasBounds else { return true }
            let text = UnsafeBufferPointer(rebasing: bytes[start..<offset])
            let number = DecimalText.double(text) ?? Double(String(decoding: text, as: UTF8.self)) ?? .nan
            if node.lowerExclusive ? !(number > node.lower) : !(number >= node.lower) { return false }
            if node.upperExclusive ? !(number < node.upper) : !(number <= node.upper) { return false }
            return true
        }

        /// Moves past a string; false when it holds an escape.
        private mutating func skipString() -> Bool {
            offset += 1
            var plain = true
            while true {
                let byte = bytes[offset]
                if byte == UInt8(ascii: "\"") {
                    offset += 1
                    return plain
                }
                if byte == UInt8(ascii: "\\") {
                    plain = false
                    offset += 1
                }
                offset += 1
            }
        }

        /// Moves past any value (the text is valid JSON).
        private mutating func skipValue() {
            switch bytes[offset] {
            case UInt8(ascii: "\""): _ = skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                repeat {
                    switch bytes[offset] {
                    case UInt8(ascii: "\""):
                        _ = skipString()
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                    default: break
                    }
                    offset += 1
                } while depth > 0
            default:
                while offset < bytes.count {
                    switch bytes[offset] {
                    case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D: return
                    default: offset += 1
                    }
                }
            }
        }

        mutating func skipWhitespace() {
            while offset < bytes.count {
                switch bytes[offset] {
                case 0x20, 0x09, 0x0A, 0x0D: offset += 1
                default: return
                }
            }
        }
    }
}
