extension JSONParser {
    /// One property value: scalars in their typed cases; objects, arrays and numbers that tally
    /// would write differently as raw JSON (their exact text, and their parsed form).
    @inline(__always)
    package mutating func parsePropertyValue() throws(JSONError) -> PropertyValue {
        switch peek() ?? 0 {
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = offset
            try skipNumber()
            return PropertyValue(numberBytes: UnsafeBufferPointer(rebasing: bytes[start..<offset]))
        case UInt8(ascii: "{"), UInt8(ascii: "["): return .json(try parseRawValue(depth: 1))
        default:
            switch try parseValue(depth: 1) {
            case .bool(let bool): return .bool(bool)
            default: return .null
            }
        }
    }

    /// The object at the current offset as properties (``parsePropertyValue()`` for each member),
    /// and the first key given twice, if any (the caller decides what that means).
    package mutating func parsePropertyObject() throws(JSONError) -> (properties: EventProperties, duplicate: String?) {
        try expect(UInt8(ascii: "{"))
        var pairs: [EventProperties.Pair] = []
        pairs.reserveCapacity(16)  // growing from empty reallocated four times for ten properties
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            try expect(UInt8(ascii: "}"))
            return (EventProperties(), nil)
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else {
                throw JSONError(peek() == nil ? .unexpectedEnd : .unexpectedCharacter, at: offset)
            }
            let key = try parseString()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            pairs.append((key, try parsePropertyValue()))
            skipWhitespace()
            guard let next = peek() else { throw JSONError(.unexpectedEnd, at: offset) }
            try expect(next)
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else { throw JSONError(.unexpectedCharacter, at: offset - 1) }
        }
        // Sorted in place: handing `pairs` to `EventProperties(pairs:)` while it is still held here
        // copied the array and retained every pair.
        EventProperties.sortByKeyBytes(&pairs)
        var duplicate: String?
        for index in pairs.indices.dropFirst() where pairs[index].key == pairs[index - 1].key {
            duplicate = pairs[index].key
            break
        }
        return (EventProperties(sortedPairs: pairs), duplicate)
    }
}
