import TallyCore

/// Cheap looks at a JSON body's top level without building it: its members' names, the byte
/// ranges of an array's elements.
enum JSONTopLevel {
    /// Calls `visit` with each member name of the top-level object (or, with `intoArray`, of the
    /// first element of a top-level array) and the parser at its value; `visit` returns true to
    /// stop. Returns false when the body is not such an object (or is malformed).
    @discardableResult
    static func forEachMember(
        _ body: UnsafeBufferPointer<UInt8>,
        intoArray: Bool = false,
        _ visit: (UnsafeBufferPointer<UInt8>, inout JSONParser) throws(JSONError) -> Bool
    ) -> Bool {
        var parser = JSONParser(bytes: body)
        do throws(JSONError) {
            parser.skipWhitespace()
            if intoArray, parser.peek() == UInt8(ascii: "[") {
                try parser.expect(UInt8(ascii: "["))
                parser.skipWhitespace()
            }
            guard parser.peek() == UInt8(ascii: "{") else { return false }
            try parser.expect(UInt8(ascii: "{"))
            parser.skipWhitespace()
            if parser.peek() == UInt8(ascii: "}") { return true }
            while true {
                parser.skipWhitespace()
                guard parser.peek() == UInt8(ascii: "\"") else { return false }
                let start = parser.offset + 1
                try parser.withStringBytes { (_) throws(JSONError) in }
                let name = UnsafeBufferPointer(rebasing: body[start..<max(start, parser.offset - 1)])
                parser.skipWhitespace()
                try parser.expect(UInt8(ascii: ":"))
                parser.skipWhitespace()
                let before = parser.offset
                if try visit(name, &parser) { return true }
                if parser.offset == before { try parser.skipValue(depth: 0) }
                parser.skipWhitespace()
                guard let next = parser.peek() else { return false }
                try parser.expect(next)
                if next == UInt8(ascii: "}") { return true }
                guard next == UInt8(ascii: ",") else { return false }
            }
        } catch {
            return false
        }
    }

    /// The byte ranges of the messages of a Segment or PostHog body, in the order the mappers
    /// return their results: the elements of its `batch` array (or of a bare array), else the
    /// whole body as one message. Nil when they cannot be told.
    static func messageRanges(_ body: UnsafeBufferPointer<UInt8>) -> [Range<Int>]? {
        let first = body.firstIndex { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        guard let first else { return nil }
        if body[first] == UInt8(ascii: "[") { return try? arrayElements(body) }
        var ranges: [Range<Int>]?
        var sawBatch = false
        forEachMember(body) { (name, parser) throws(JSONError) in
            guard name.elementsEqual("batch".utf8), parser.peek() == UInt8(ascii: "[") else { return false }
            sawBatch = true
            let start = parser.offset
            try parser.skipValue(depth: 0)
            let end = parser.offset
            ranges = try? arrayElements(UnsafeBufferPointer(rebasing: body[start..<end])).map {
                ($0.lowerBound + start)..<($0.upperBound + start)
            }
            return false
        }
        return sawBatch ? ranges : [0..<body.count]
    }

    /// The byte ranges of the elements of a top-level array.
    /// - Throws: ``JSONError`` when the body is not a well-formed array.
    static func arrayElements(_ body: UnsafeBufferPointer<UInt8>) throws(JSONError) -> [Range<Int>] {
        var parser = JSONParser(bytes: body)
        var ranges: [Range<Int>] = []
        parser.skipWhitespace()
        try parser.expect(UInt8(ascii: "["))
        parser.skipWhitespace()
        if parser.peek() == UInt8(ascii: "]") {
            try parser.expect(UInt8(ascii: "]"))
        } else {
            while true {
                parser.skipWhitespace()
                let start = parser.offset
                try parser.skipValue(depth: 0)
                ranges.append(start..<parser.offset)
                parser.skipWhitespace()
                guard let next = parser.peek() else { throw JSONError(.unexpectedEnd, at: parser.offset) }
                try parser.expect(next)
                if next == UInt8(ascii: "]") { break }
                guard next == UInt8(ascii: ",") else { throw JSONError(.unexpectedCharacter, at: parser.offset - 1) }
            }
        }
        parser.skipWhitespace()
        guard parser.peek() == nil else { throw JSONError(.trailingContent, at: parser.offset) }
        return ranges
    }
}
