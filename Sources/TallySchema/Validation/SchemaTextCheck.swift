package import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Checks raw JSON text against a schema without parsing it into a tree: the fast path for nested
/// property values (a cart's `products[]`), which parsing cost twice what validating it did.
///
/// It answers only "certainly valid". Anything it does not decide by itself (a violation, a
/// keyword outside the common subset, an escaped string under a string keyword, a number that is
/// an integer only in value such as `2.0`) answers false, and the caller validates the parsed
/// value, which names each violation with its path. So this path can only be faster, never
/// different.
///
/// Decided here: `type`, `properties`, `required`, `additionalProperties`, `items` (one schema),
/// `minItems`, `maxItems`, `minimum` / `maximum` (both kinds), `minLength`, `maxLength`,
/// `pattern`, `format`, local `$ref`. Everything else defers.
package struct SchemaTextCheck {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var offset = 0

    /// Whether `raw` certainly satisfies `schema`.
    package static func accepts(_ raw: RawJSON, schema: JSONSchema) -> Bool {
        var text = raw.text
        return text.withUTF8 { bytes in
            var check = SchemaTextCheck(bytes: bytes)
            check.skipWhitespace()
            return check.accepts(schema)
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Consumes the value at the offset; false when not certainly valid (the walk then stops).
    private mutating func accepts(_ schema: JSONSchema) -> Bool {
        if schema.rejectsEverything || schema.enumValues != nil || schema.constValue != nil
            || schema.types?.isEmpty == true
        {
            return false
        }
        if schema.hasApplicators {
            if let reference = schema.reference { return accepts(reference.target) }
            if schema.multipleOf != nil || schema.composition != nil || schema.objectKeywords != nil { return false }
        }
        let mask = schema.typeMask
        switch bytes[offset] {
        case UInt8(ascii: "{"):
            guard mask == 0 || mask & JSONSchema.JSONType.object.bit != 0 else { return false }
            return acceptsObject(schema)
        case UInt8(ascii: "["):
            guard mask == 0 || mask & JSONSchema.JSONType.array.bit != 0 else { return false }
            return acceptsArray(schema)
        case UInt8(ascii: "\""):
            guard mask == 0 || mask & JSONSchema.JSONType.string.bit != 0 else { return false }
            return acceptsString(schema)
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            guard mask == 0 || mask & JSONSchema.JSONType.boolean.bit != 0 else { return false }
            offset += bytes[offset] == UInt8(ascii: "t") ? 4 : 5
            return true
        case UInt8(ascii: "n"):
            guard mask == 0 || mask & JSONSchema.JSONType.null.bit != 0 else { return false }
            offset += 4
            return true
        default:
            return acceptsNumber(schema, mask: mask)
        }
    }

    private mutating func acceptsObject(_ schema: JSONSchema) -> Bool {
        guard let requiredMask = schema.requiredMask else { return false }
        var seen: UInt64 = 0
        offset += 1
        skipWhitespace()
        if bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            return requiredMask == 0
        }
        while true {
            skipWhitespace()
            let keyStart = offset + 1
            guard skipString() else { return false }  // an escaped key: let the parser unescape it
            let key = UnsafeBufferPointer(rebasing: bytes[keyStart..<offset - 1])
            skipWhitespace()
            offset += 1  // ':'
            skipWhitespace()
            if let index = Self.index(of: key, in: schema.properties) {
                seen |= 1 << UInt64(index)
                guard accepts(schema.properties[index].schema) else { return false }
            } else {
                switch schema.additionalProperties {
                case .allowed: skipValue()
                case .forbidden: return false
                case .schema(let additional): guard accepts(additional) else { return false }
                }
            }
            skipWhitespace()
            let next = bytes[offset]
            offset += 1
            if next == UInt8(ascii: "}") { return seen & requiredMask == requiredMask }
        }
    }

    private static func index(
        of key: UnsafeBufferPointer<UInt8>,
        in properties: [(name: String, schema: JSONSchema)]
    ) -> Int? {
        for index in properties.indices where properties[index].name.utf8.count == key.count {
            let found = properties[index].name.utf8.withContiguousStorageIfAvailable { name in
                key.isEmpty || memcmp(name.baseAddress!, key.baseAddress!, key.count) == 0
            }
            if found ?? properties[index].name.utf8.elementsEqual(key) { return index }
        }
        return nil
    }

    private mutating func acceptsArray(_ schema: JSONSchema) -> Bool {
        var every: JSONSchema?
        var minItems = 0
        var maxItems = Int.max
        if let keywords = schema.arrayKeywords {
            if keywords.uniqueItems || keywords.contains != nil { return false }
            switch keywords.items {
            case nil: break
            case .every(let schema)?: every = schema
            case .tuple?: return false
            }
            minItems = keywords.minItems ?? 0
            maxItems = keywords.maxItems ?? .max
        }
        var count = 0
        offset += 1
        skipWhitespace()
        if bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            return minItems == 0
        }
        while true {
            skipWhitespace()
            if let every {
                guard accepts(every) else { return false }
            } else {
                skipValue()
            }
            count += 1
            skipWhitespace()
            let next = bytes[offset]
            offset += 1
            if next == UInt8(ascii: "]") { return count >= minItems && count <= maxItems }
        }
    }

    private mutating func acceptsString(_ schema: JSONSchema) -> Bool {
        let start = offset + 1
        let plain = skipString()
        let checksText =
            schema.minLength != nil || schema.maxLength != nil || schema.pattern != nil
            || schema.format != nil
        guard checksText else { return true }
        guard plain else { return false }
        let text = UnsafeBufferPointer(rebasing: bytes[start..<offset - 1])
        if schema.minLength != nil || schema.maxLength != nil {
            var scalars = 0
            for byte in text where byte & 0xC0 != 0x80 { scalars += 1 }
            if let minLength = schema.minLength, scalars < minLength { return false }
            if let maxLength = schema.maxLength, scalars > maxLength { return false }
        }
        if schema.pattern != nil || schema.format != nil {
            let string = String(decoding: text, as: UTF8.self)
            if let pattern = schema.pattern, !pattern.matches(string) { return false }
            if let format = schema.format, !format.matches(string) { return false }
        }
        return true
    }

    private mutating func acceptsNumber(_ schema: JSONSchema, mask: UInt8) -> Bool {
        let start = offset
        var isInteger = true
        while offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"): break
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): isInteger = false
            default:
                return acceptsNumber(UnsafeBufferPointer(rebasing: bytes[start..<offset]), isInteger, schema, mask)
            }
            offset += 1
        }
        return acceptsNumber(UnsafeBufferPointer(rebasing: bytes[start..<offset]), isInteger, schema, mask)
    }

    private func acceptsNumber(
        _ text: UnsafeBufferPointer<UInt8>,
        _ isInteger: Bool,
        _ schema: JSONSchema,
        _ mask: UInt8
    ) -> Bool {
        if mask != 0, mask & JSONSchema.JSONType.number.bit == 0 {
            // `2.0` is an integer to JSON Schema: the parsed path decides such spellings.
            guard isInteger, mask & JSONSchema.JSONType.integer.bit != 0 else { return false }
        }
        guard !schema.lowerBounds.isEmpty || !schema.upperBounds.isEmpty else { return true }
        let number = Self.double(text)
        for bound in schema.lowerBounds where bound.exclusive ? !(number > bound.value) : !(number >= bound.value) {
            return false
        }
        for bound in schema.upperBounds where bound.exclusive ? !(number < bound.value) : !(number <= bound.value) {
            return false
        }
        return true
    }

    /// The double nearest to a JSON number's text, as `Double(String)` reads it.
    static func double(_ text: UnsafeBufferPointer<UInt8>) -> Double {
        DecimalText.double(text) ?? Double(String(decoding: text, as: UTF8.self)) ?? .nan
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

    private mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }
}
