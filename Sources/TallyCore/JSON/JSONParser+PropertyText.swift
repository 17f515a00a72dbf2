extension JSONParser {
    /// The object at the current offset as properties kept in their text (``PropertyText``),
    /// checked by the same rules as ``parsePropertyObject()``. Nil, with the offset unchanged,
    /// for an object not kept so (a key with an escape, a key given twice) and for malformed JSON:
    /// the caller then reads it with ``parsePropertyObject()``, which reports what is wrong.
    package mutating func parsePropertyText() -> EventProperties? {
        let start = offset
        do throws(JSONError) {
            if let properties = try scanPropertyText() { return properties }
        } catch {}
        offset = start
        return nil
    }

    private mutating func scanPropertyText() throws(JSONError) -> EventProperties? {
        let start = offset
        try expect(UInt8(ascii: "{"))
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { return nil }
        var members: [PropertyText.Member] = []
        members.reserveCapacity(16)
        var summary = PropertyText.Summary()
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { return nil }
            let keyStart = offset + 1
            let keyLength = try scanString()
            let keyCount = offset - 1 - keyStart
            // Every escape is longer than what it stands for: equal lengths mean a plain key.
            guard Int(keyLength) == keyCount else { return nil }
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            let valueStart = offset
            var shape = RawJSON.Shape()
            // Depth 1, as `parsePropertyValue()` reads nested values.
            try scanValue(level: 0, depth: 1, shape: &shape)
            let valueCount = offset - valueStart
            summary.longestKey = max(summary.longestKey, Int32(keyCount), shape.longestKey)
            summary.longestString = max(summary.longestString, shape.longestString)
            summary.estimatedBytes += keyCount + 8
            var needsRewrite = false
            switch shape.kind {
            case .string:
                needsRewrite = Int(shape.longestString) != valueCount - 2
                summary.estimatedBytes += Int(shape.longestString)
            case .object, .array:
                summary.depth = max(summary.depth, shape.depth)
                summary.nestedValues += shape.values
                summary.estimatedBytes += valueCount
            case .number:
                // Counted as a raw value whether or not it is one (the bound stays a bound).
                summary.nestedValues += 1
                summary.estimatedBytes += max(valueCount, 24)
            case .bool, .null:
                summary.estimatedBytes += 24
            }
            members.append(
                PropertyText.Member(
                    keyStart: Int32(keyStart - start),
                    keyCount: Int32(keyCount),
                    valueStart: Int32(valueStart - start),
                    valueEnd: Int32(offset - start),
                    needsRewrite: needsRewrite
                )
            )
            skipWhitespace()
            guard let next = peek() else { throw JSONError(.unexpectedEnd, at: offset) }
            offset += 1
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else { throw JSONError(.unexpectedCharacter, at: offset - 1) }
        }
        let text = UnsafeBufferPointer(rebasing: bytes[start..<offset])
        guard PropertyText.sortByKey(&members, in: text) else { return nil }
        return EventProperties(text: PropertyText(bytes: Array(text), members: members, summary: summary))
    }
}
