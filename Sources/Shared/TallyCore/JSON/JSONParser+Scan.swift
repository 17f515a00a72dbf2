#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension JSONParser {
    /// The value at the current offset as raw JSON: its text, checked by the same rules as
    /// ``parseValue(depth:)`` but without building a tree, and its ``RawJSON/Shape``.
    package mutating func parseRawValue(depth: Int) throws(JSONError) -> RawJSON {
        let start = offset
        var shape = RawJSON.Shape()
        do {
            try scanValue(level: 0, depth: depth, shape: &shape)
        } catch {
            // The parser is the reference for what is refused and where: let it report.
            offset = start
            _ = try parseValue(depth: depth)
            shape = rescan(from: start, depth: depth)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        return RawJSON(validatedText: text, shape: shape)
    }

    /// The shape of the whole input, which holds one JSON value (whitespace around it allowed).
    package mutating func scanShape() throws(JSONError) -> RawJSON.Shape {
        var shape = RawJSON.Shape()
        skipWhitespace()
        try scanValue(level: 0, depth: 0, shape: &shape)
        return shape
    }

    /// Unreachable unless the scanner refuses what the parser accepts; then the shape is taken
    /// again with no depth limit, so a disagreement costs time, never a wrong answer.
    private func rescan(from start: Int, depth: Int) -> RawJSON.Shape {
        var again = JSONParser(bytes: UnsafeBufferPointer(rebasing: bytes[start..<offset]), maxDepth: .max)
        return (try? again.scanShape()) ?? RawJSON.Shape()
    }

    mutating func scanValue(level: Int32, depth: Int, shape: inout RawJSON.Shape) throws(JSONError) {
        shape.values += 1
        guard offset < bytes.count else { throw JSONError(.unexpectedEnd, at: offset) }
        let kind: RawJSON.Shape.Kind
        switch bytes[offset] {
        case UInt8(ascii: "{"):
            kind = .object
            try scanObject(level: level + 1, depth: depth + 1, shape: &shape)
        case UInt8(ascii: "["):
            kind = .array
            try scanArray(level: level + 1, depth: depth + 1, shape: &shape)
        case UInt8(ascii: "\""):
            kind = .string
            shape.longestString = max(shape.longestString, try scanString())
        case UInt8(ascii: "t"):
            kind = .bool
            try expectLiteral("true")
        case UInt8(ascii: "f"):
            kind = .bool
            try expectLiteral("false")
        case UInt8(ascii: "n"):
            kind = .null
            try expectLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            kind = .number
            try skipNumber()
        default:
            throw JSONError(.unexpectedCharacter, at: offset)
        }
        if level == 0 { shape.kind = kind }
    }

    private mutating func scanObject(level: Int32, depth: Int, shape: inout RawJSON.Shape) throws(JSONError) {
        guard depth <= maxDepth else { throw JSONError(.tooDeep, at: offset) }
        shape.depth = max(shape.depth, level)
        offset += 1
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            offset += 1
            return
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else {
                throw JSONError(offset < bytes.count ? .unexpectedCharacter : .unexpectedEnd, at: offset)
            }
            shape.longestKey = max(shape.longestKey, try scanString())
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            try scanValue(level: level, depth: depth, shape: &shape)
            skipWhitespace()
            guard let next = peek() else { throw JSONError(.unexpectedEnd, at: offset) }
            offset += 1
            if next == UInt8(ascii: "}") { return }
            guard next == UInt8(ascii: ",") else { throw JSONError(.unexpectedCharacter, at: offset - 1) }
        }
    }

    private mutating func scanArray(level: Int32, depth: Int, shape: inout RawJSON.Shape) throws(JSONError) {
        guard depth <= maxDepth else { throw JSONError(.tooDeep, at: offset) }
        shape.depth = max(shape.depth, level)
        offset += 1
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            offset += 1
            return
        }
        while true {
            skipWhitespace()
            try scanValue(level: level, depth: depth, shape: &shape)
            skipWhitespace()
            guard let next = peek() else { throw JSONError(.unexpectedEnd, at: offset) }
            offset += 1
            if next == UInt8(ascii: "]") { return }
            guard next == UInt8(ascii: ",") else { throw JSONError(.unexpectedCharacter, at: offset - 1) }
        }
    }

    /// Moves past the string at the current offset (its opening quote), validating escapes and
    /// UTF-8; returns its length in UTF-8 bytes once unescaped.
    @inline(__always)
    package mutating func scanString() throws(JSONError) -> Int32 {
        // Plain ASCII up to the closing quote: most strings, measured by one run.
        let end = plainRunEnd(from: offset + 1)
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            defer { offset = end + 1 }
            return Int32(end - offset - 1)
        }
        return try scanStringWithEscapes()
    }

    /// ``scanString()`` for strings with escapes or non-ASCII bytes.
    private mutating func scanStringWithEscapes() throws(JSONError) -> Int32 {
        offset += 1
        var length: Int32 = 0
        while true {
            let end = plainRunEnd(from: offset)
            length += Int32(end - offset)
            offset = end
            guard offset < bytes.count else { break }
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                offset += 1
                return length
            }
            if byte == UInt8(ascii: "\\") {
                length += Int32(UTF8.width(try parseEscapedScalar()))
            } else if byte < 0x20 {
                throw JSONError(.controlCharacterInString, at: offset)
            } else if byte >= 0x80 {
                length += Int32(try skipUTF8Scalar())
            } else {
                offset += 1
                length += 1
            }
        }
        throw JSONError(.unexpectedEnd, at: offset)
    }
}

extension RawJSON {
    /// The last member named `key`, parsed, when this is an object that has one; read from the
    /// text without parsing the other members.
    package func member(_ key: String) -> JSONValue? {
        guard shape.kind == .object else { return nil }
        var text = text
        var key = key
        return text.withUTF8 { bytes in
            key.withUTF8 { wanted in
                var parser = JSONParser(bytes: bytes, maxDepth: .max)
                return try? parser.lastMember(wanted)
            }
        }
    }
}

extension RawJSON {
    /// The text of the last member named `key` when its value is a string (decoded) or a number
    /// (as spelled), for objects; nil otherwise. Reads no other member's value into memory: the
    /// Segment mapper takes `context.app.version` and three more fields this way, and parsing each
    /// into a ``JSONValue`` cost ~1,200 instructions.
    package func memberText(_ key: StaticString) -> String? {
        guard shape.kind == .object else { return nil }
        let wanted = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
        let found = text.utf8.withContiguousStorageIfAvailable { bytes in
            var parser = JSONParser(bytes: bytes, maxDepth: .max)
            return try? parser.lastMemberText(wanted)
        }
        return found
            ?? member(key.description).flatMap { value in
                switch value {
                case .string(let text): text
                case .number(let number): number.text
                default: nil
                }
            }
    }
}

extension JSONParser {
    /// The text of the last string or number member named `wanted` of the object at the offset.
    fileprivate mutating func lastMemberText(_ wanted: UnsafeBufferPointer<UInt8>) throws(JSONError) -> String? {
        var found: String?
        skipWhitespace()
        try expect(UInt8(ascii: "{"))
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { return nil }
        while true {
            skipWhitespace()
            let matches = try withStringBytes { (key) throws(JSONError) in
                key.count == wanted.count
                    && (key.isEmpty || memcmp(key.baseAddress!, wanted.baseAddress!, key.count) == 0)
            }
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            switch peek() ?? 0 {
            case UInt8(ascii: "\""):
                if matches { found = try parseString() } else { try skipValue(depth: 1) }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                if matches { found = try parseNumberText() } else { try skipNumber() }
            default:
                if matches { found = nil }
                try skipValue(depth: 1)
            }
            skipWhitespace()
            guard let next = peek() else { throw JSONError(.unexpectedEnd, at: offset) }
            offset += 1
            if next == UInt8(ascii: "}") { return found }
        }
    }
}

extension JSONParser {
    /// The last member named `wanted` of the object at the offset, moving past the object.
    fileprivate mutating func lastMember(_ wanted: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSONValue? {
        var found: JSONValue?
        skipWhitespace()
        try expect(UInt8(ascii: "{"))
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { return nil }
        var ignored = RawJSON.Shape()
        while true {
            skipWhitespace()
            let matches = try withStringBytes { (key) throws(JSONError) in
                key.count == wanted.count && zip(key, wanted).allSatisfy { $0 == $1 }
            }
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            if matches {
                found = try parseValue(depth: 1)
            } else {
                try scanValue(level: 1, depth: 1, shape: &ignored)
            }
            skipWhitespace()
            guard let next = peek() else { throw JSONError(.unexpectedEnd, at: offset) }
            offset += 1
            if next == UInt8(ascii: "}") { return found }
        }
    }
}

extension JSONParser {
    /// Moves past the value at the offset, checking it by the same rules as
    /// ``parseValue(depth:)``, without building it.
    package mutating func skipValue(depth: Int) throws(JSONError) {
        var ignored = RawJSON.Shape()
        try scanValue(level: 0, depth: depth, shape: &ignored)
    }
}
