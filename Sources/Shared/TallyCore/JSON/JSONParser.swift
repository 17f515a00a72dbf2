/// A complete RFC 8259 parser over UTF-8 bytes.
///
/// Rejects everything the RFC rejects (checked against JSONTestSuite's `n_` files) and validates
/// UTF-8 inside strings (overlong forms, surrogates and code points past U+10FFFF are errors).
/// Decisions where the RFC leaves a choice (JSONTestSuite's `i_` files):
/// - a `\u` escape naming a lone surrogate is rejected (Swift strings cannot hold one);
/// - numbers of any size are accepted and kept as text (``JSONNumber``);
/// - duplicate object names are kept in order; lookups take the last;
/// - a byte order mark is rejected: JSON between systems has none (RFC 8259 §8.1);
/// - nesting deeper than `maxDepth` is rejected rather than risking the stack.
package struct JSONParser {
    /// The default nesting limit: far beyond any event, far below any stack limit.
    package static let defaultMaxDepth = 128

    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    /// The offset of the next byte to read.
    package internal(set) var offset: Int

    /// A parser over `bytes`, which must outlive it.
    package init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = JSONParser.defaultMaxDepth) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        offset = 0
    }

    /// Parses `bytes` as one JSON text, in place.
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = defaultMaxDepth) throws(JSONError)
        -> JSONValue
    {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        return try parser.parseDocument()
    }

    /// Parses `bytes` as one JSON text (surrounding whitespace allowed).
    package static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = defaultMaxDepth) throws(JSONError)
        -> JSONValue
    {
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { (buffer) throws(JSONError) in
            try parse(buffer, maxDepth: maxDepth)
        }
    }

    /// Parses `text` as one JSON text.
    package static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(JSONError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }

    /// Parses one value and requires only whitespace after it.
    package mutating func parseDocument() throws(JSONError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard offset == bytes.count else { throw JSONError(.trailingContent, at: offset) }
        return value
    }

    // MARK: Scanning primitives, shared with decoders built on this parser

    /// Skips JSON whitespace (space, tab, LF, CR).
    @inline(__always)
    package mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    /// The next byte without consuming it; nil at the end.
    @inline(__always)
    package func peek() -> UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    /// Consumes `byte` or throws.
    @inline(__always)
    package mutating func expect(_ byte: UInt8) throws(JSONError) {
        guard offset < bytes.count else { throw JSONError(.unexpectedEnd, at: offset) }
        guard bytes[offset] == byte else { throw JSONError(.unexpectedCharacter, at: offset) }
        offset += 1
    }

    /// Parses any value at the current offset.
    package mutating func parseValue(depth: Int) throws(JSONError) -> JSONValue {
        guard offset < bytes.count else { throw JSONError(.unexpectedEnd, at: offset) }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(JSONNumber(text: try parseNumberText()))
        default:
            throw JSONError(.unexpectedCharacter, at: offset)
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let count = literal.utf8CodeUnitCount
        guard offset + count <= bytes.count else { throw JSONError(.unexpectedEnd, at: offset) }
        let start = literal.utf8Start
        for index in 0..<count where bytes[offset + index] != start[index] {
            throw JSONError(.unexpectedCharacter, at: offset + index)
        }
        offset += count
    }

    private mutating func parseObject(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maxDepth else { throw JSONError(.tooDeep, at: offset) }
        offset += 1
        var members: [JSONMember] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            offset += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else {
                throw JSONError(offset < bytes.count ? .unexpectedCharacter : .unexpectedEnd, at: offset)
            }
            let key = try parseString()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            let value = try parseValue(depth: depth)
            members.append(JSONMember(key: key, value: value))
            skipWhitespace()
            guard let next = peek() else { throw JSONError(.unexpectedEnd, at: offset) }
            offset += 1
            if next == UInt8(ascii: "}") { return .object(members) }
            guard next == UInt8(ascii: ",") else { throw JSONError(.unexpectedCharacter, at: offset - 1) }
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maxDepth else { throw JSONError(.tooDeep, at: offset) }
        offset += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            offset += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard let next = peek() else { throw JSONError(.unexpectedEnd, at: offset) }
            offset += 1
            if next == UInt8(ascii: "]") { return .array(elements) }
            guard next == UInt8(ascii: ",") else { throw JSONError(.unexpectedCharacter, at: offset - 1) }
        }
    }

    /// Parses a number's text: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    package mutating func parseNumberText() throws(JSONError) -> String {
        let start = offset
        try skipNumber()
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
    }

    /// Moves past a number, checking its grammar.
    @inline(__always)
    mutating func skipNumber() throws(JSONError) {
        if peek() == UInt8(ascii: "-") { offset += 1 }
        guard let first = peek() else { throw JSONError(.unexpectedEnd, at: offset) }
        if first == UInt8(ascii: "0") {
            offset += 1
        } else if isDigit(first) {
            skipDigits()
        } else {
            throw JSONError(.invalidNumber, at: offset)
        }
        if peek() == UInt8(ascii: ".") {
            offset += 1
            guard let digit = peek(), isDigit(digit) else { throw JSONError(.invalidNumber, at: offset) }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            offset += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { offset += 1 }
            guard let digit = peek(), isDigit(digit) else { throw JSONError(.invalidNumber, at: offset) }
            skipDigits()
        }
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    @inline(__always)
    private mutating func skipDigits() {
        while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
    }
}
