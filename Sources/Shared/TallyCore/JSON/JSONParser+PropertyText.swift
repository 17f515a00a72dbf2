#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension JSONParser {
    /// The object at the current offset as properties kept in their text (``PropertyText``),
    /// checked by the same rules as ``parsePropertyObject()``. Nil, with the offset unchanged,
    /// for an object not kept so (a key with an escape, a key given twice) and for malformed JSON:
    /// the caller then reads it with ``parsePropertyObject()``, which reports what is wrong.
    package mutating func parsePropertyText() -> EventProperties? {
        let start = offset
        // The member table is gathered on the stack (no allocation but the PropertyText's own),
        // in an array only past 32 members.
        let properties = withUnsafeTemporaryAllocation(of: PropertyText.Member.self, capacity: 32) { stack in
            var table = MemberTable(stack: stack)
            do throws(JSONError) {
                return try scanPropertyText(into: &table)
            } catch {
                return nil
            }
        }
        if properties == nil { offset = start }
        return properties
    }

    /// Members as they are read: in a fixed buffer, then in an array when it is full.
    private struct MemberTable {
        let stack: UnsafeMutableBufferPointer<PropertyText.Member>
        var count = 0
        var spilled: [PropertyText.Member] = []

        @inline(__always)
        mutating func append(_ member: PropertyText.Member) {
            if count < stack.count {
                (stack.baseAddress! + count).initialize(to: member)
            } else {
                if spilled.isEmpty { spilled.append(contentsOf: stack) }
                spilled.append(member)
            }
            count += 1
        }

        /// Calls `body` with the members, in place.
        mutating func withMembers<Result>(_ body: (UnsafeMutableBufferPointer<PropertyText.Member>) -> Result) -> Result
        {
            if count <= stack.count { return body(UnsafeMutableBufferPointer(rebasing: stack[0..<count])) }
            return spilled.withUnsafeMutableBufferPointer { body($0) }
        }
    }

    private mutating func scanPropertyText(into members: inout MemberTable) throws(JSONError) -> EventProperties? {
        let start = offset
        try expect(UInt8(ascii: "{"))
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { return nil }
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
        return members.withMembers { members in
            guard PropertyText.sortByKey(members, in: text) else { return nil }
            return EventProperties(
                text: PropertyText.make(bytes: text, members: UnsafeBufferPointer(members), summary: summary)
            )
        }
    }
}

extension JSONParser {
    /// The texts of the last string or number members named `first` and `second` of the object
    /// at the offset (decoded strings, numbers as spelled; a later member of another type makes
    /// it nil), read in one pass without building the other members.
    package mutating func lastMemberTexts(_ first: StaticString, _ second: StaticString) throws(JSONError) -> (
        String?, String?
    ) {
        var found: (String?, String?) = (nil, nil)
        try expect(UInt8(ascii: "{"))
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { return found }
        while true {
            skipWhitespace()
            // 1 for `first`, 2 for `second`, 0 for another key.
            let match = try withStringBytes { (key) throws(JSONError) -> Int in
                func equals(_ wanted: StaticString) -> Bool {
                    key.count == wanted.utf8CodeUnitCount
                        && (key.isEmpty || memcmp(key.baseAddress!, wanted.utf8Start, key.count) == 0)
                }
                return equals(first) ? 1 : equals(second) ? 2 : 0
            }
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            var text: String?
            switch peek() ?? 0 {
            case UInt8(ascii: "\""):
                if match != 0 { text = try parseString() } else { try skipValue(depth: 1) }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                if match != 0 { text = try parseNumberText() } else { try skipNumber() }
            default:
                try skipValue(depth: 1)
            }
            if match == 1 { found.0 = text } else if match == 2 { found.1 = text }
            skipWhitespace()
            guard let next = peek() else { throw JSONError(.unexpectedEnd, at: offset) }
            offset += 1
            if next == UInt8(ascii: "}") { return found }
        }
    }
}
