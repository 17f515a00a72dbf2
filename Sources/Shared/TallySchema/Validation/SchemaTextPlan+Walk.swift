import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension SchemaTextPlan {
    /// One walk over a value's text; the tables are borrowed for its length.
    struct SchemaTextWalk {
        let bytes: UnsafeBufferPointer<UInt8>
        let nodes: UnsafeBufferPointer<Node>
        let members: UnsafeBufferPointer<Member>
        let names: UnsafeBufferPointer<UInt8>
        let textSchemas: [JSONSchema]
        var offset = 0

        /// Consumes the value at the offset; false when not certainly valid (the walk then stops).
        mutating func accepts(_ index: Int32) -> Bool {
            let node = nodes.baseAddress! + Int(index)  // not a copy: a node is ~100 bytes
            if node.pointee.defers { return false }
            let mask = node.pointee.typeMask
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

        /// ``accepts(_:)`` for an event's properties kept in their text, whose members (keys and
        /// value extents) come from its table: keys are not scanned again, nor strings that no
        /// keyword constrains. The validator also converts these members: numbers spelled as
        /// non-integers are left to it where the schema declares `integer`.
        mutating func acceptsProperties(
            _ index: Int32,
            _ properties: UnsafeBufferPointer<PropertyText.Member>
        ) -> Bool {
            let node = nodes.baseAddress! + Int(index)  // not a copy: a node is ~100 bytes
            guard !node.pointee.defers,
                node.pointee.typeMask == 0 || node.pointee.typeMask & JSONSchema.JSONType.object.bit != 0
            else {
                return false
            }
            var seen: UInt64 = 0
            var next = 0
            for property in properties {
                offset = Int(property.valueStart)
                let target: Int32
                if let position = member(
                    of: node,
                    named: Int(property.keyStart),
                    count: Int(property.keyCount),
                    from: next
                ) {
                    seen |= 1 << UInt64(position)
                    next = position + 1
                    target = members[Int(node.pointee.firstMember) + position].node
                } else if node.pointee.additional == SchemaTextPlan.allowed {
                    continue
                } else if node.pointee.additional == SchemaTextPlan.forbidden {
                    return false
                } else {
                    target = node.pointee.additional
                }
                guard keepsSpelling(target) else { return false }
                let targetNode = nodes.baseAddress! + Int(target)
                if bytes[offset] == UInt8(ascii: "\""), !targetNode.pointee.defers,
                    targetNode.pointee.typeMask == 0
                        || targetNode.pointee.typeMask & JSONSchema.JSONType.string.bit != 0,
                    targetNode.pointee.minLength == 0, targetNode.pointee.maxLength == .max,
                    targetNode.pointee.textSchema < 0
                {
                    continue  // any string will do: its extent is known
                }
                guard accepts(target) else { return false }
            }
            return seen & node.pointee.requiredMask == node.pointee.requiredMask
        }

        private mutating func acceptsObject(_ node: UnsafePointer<Node>) -> Bool {
            var seen: UInt64 = 0
            var next = 0
            offset += 1
            skipWhitespace()
            if bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                return node.pointee.requiredMask == 0
            }
            while true {
                skipWhitespace()
                let keyStart = offset + 1
                let position: Int?
                if let expected = expectedMember(of: node, next, at: keyStart) {
                    position = expected
                } else {
                    guard skipString() else { return false }  // an escaped key: let the parser unescape it
                    position = member(of: node, named: keyStart, count: offset - 1 - keyStart, from: next)
                }
                skipWhitespace()
                offset += 1  // ':'
                skipWhitespace()
                if let position {
                    seen |= 1 << UInt64(position)
                    next = position + 1
                    let child = members[Int(node.pointee.firstMember) + position].node
                    guard accepts(child) else { return false }
                } else if node.pointee.additional == SchemaTextPlan.allowed {
                    skipValue()
                } else if node.pointee.additional == SchemaTextPlan.forbidden || !accepts(node.pointee.additional) {
                    return false
                }
                skipWhitespace()
                let next = bytes[offset]
                offset += 1
                if next == UInt8(ascii: "}") { return seen & node.pointee.requiredMask == node.pointee.requiredMask }
            }
        }

        /// Whether the value at the offset is not a number that the validator's conversion would
        /// respell: one with a fraction or exponent, where `node` declares `integer`.
        private func keepsSpelling(_ index: Int32) -> Bool {
            guard nodes[Int(index)].typeMask & JSONSchema.JSONType.integer.bit != 0 else { return true }
            var position = offset
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"): position += 1
                case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return false
                default: return true
                }
            }
            return true
        }

        /// `next` when the key at `start` is the name of `node`'s member at that position, moving
        /// past the key: keys mostly come in the order the plan declares them, and a match needs
        /// no scan of the key (~100 instructions a key of a cart's products).
        private mutating func expectedMember(of node: UnsafePointer<Node>, _ next: Int, at start: Int) -> Int? {
            guard next < Int(node.pointee.memberCount) else { return nil }
            let member = members[Int(node.pointee.firstMember) + next]
            let count = Int(member.nameCount)
            guard member.isPlain, start + count < bytes.count, bytes[start + count] == UInt8(ascii: "\""),
                count == 0 || memcmp(names.baseAddress! + Int(member.nameStart), bytes.baseAddress! + start, count) == 0
            else { return nil }
            offset = start + count + 1
            return next
        }

        /// The position among `node`'s declared members of the key at `start`, searched from
        /// `next` on (then from the first): keys usually come in the order the plan declares them.
        private func member(of node: UnsafePointer<Node>, named start: Int, count: Int, from next: Int) -> Int? {
            let key = bytes.baseAddress! + start
            let memberCount = Int(node.pointee.memberCount)
            var position = next < memberCount ? next : 0
            for _ in 0..<memberCount {
                let member = members[Int(node.pointee.firstMember) + position]
                if Int(member.nameCount) == count,
                    count == 0
                        || (names[Int(member.nameStart)] == key.pointee
                            && memcmp(names.baseAddress! + Int(member.nameStart), key, count) == 0)
                {
                    return position
                }
                position = position + 1 == memberCount ? 0 : position + 1
            }
            return nil
        }

        private mutating func acceptsArray(_ node: UnsafePointer<Node>) -> Bool {
            var count = 0
            offset += 1
            skipWhitespace()
            if bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                return node.pointee.minItems == 0
            }
            while true {
                skipWhitespace()
                if node.pointee.items == SchemaTextPlan.allowed {
                    skipValue()
                } else {
                    guard accepts(node.pointee.items) else { return false }
                }
                count += 1
                skipWhitespace()
                let next = bytes[offset]
                offset += 1
                if next == UInt8(ascii: "]") { return count >= node.pointee.minItems && count <= node.pointee.maxItems }
            }
        }

        private mutating func acceptsString(_ node: UnsafePointer<Node>) -> Bool {
            let start = offset + 1
            let plain = skipString()
            guard node.pointee.minLength > 0 || node.pointee.maxLength < .max || node.pointee.textSchema >= 0 else {
                return true
            }
            guard plain else { return false }
            let text = UnsafeBufferPointer(rebasing: bytes[start..<offset - 1])
            if node.pointee.minLength > 0 || node.pointee.maxLength < .max {
                var scalars = 0
                for byte in text where byte & 0xC0 != 0x80 { scalars += 1 }
                if scalars < node.pointee.minLength || scalars > node.pointee.maxLength { return false }
            }
            if node.pointee.textSchema >= 0 {
                let schema = textSchemas[Int(node.pointee.textSchema)]
                if let pattern = schema.pattern, !pattern.matches(utf8: text) { return false }
                if let format = schema.format, !format.matches(String(decoding: text, as: UTF8.self)) { return false }
            }
            return true
        }

        private mutating func acceptsNumber(_ node: UnsafePointer<Node>) -> Bool {
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
            let mask = node.pointee.typeMask
            if mask != 0, mask & JSONSchema.JSONType.number.bit == 0 {
                // `2.0` is an integer to JSON Schema: the parsed path decides such spellings.
                guard isInteger, mask & JSONSchema.JSONType.integer.bit != 0 else { return false }
            }
            guard node.pointee.hasBounds else { return true }
            let text = UnsafeBufferPointer(rebasing: bytes[start..<offset])
            let number = DecimalText.double(text) ?? Double(String(decoding: text, as: UTF8.self)) ?? .nan
            if node.pointee.lowerExclusive ? !(number > node.pointee.lower) : !(number >= node.pointee.lower) {
                return false
            }
            if node.pointee.upperExclusive ? !(number < node.pointee.upper) : !(number <= node.pointee.upper) {
                return false
            }
            return true
        }

        /// Moves past a string; false when it holds an escape.
        private mutating func skipString() -> Bool {
            offset += 1
            var plain = true
            while true {
                // Eight bytes at a time up to a quote, backslash or non-ASCII byte.
                offset = JSONParser.plainRunEnd(in: bytes, from: offset)
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
