extension JSONParser {
    // MARK: Strings: plain runs, escapes, UTF-8 validation

    /// Parses a string at the current offset and hands its decoded UTF-8 to `body` without
    /// creating a `String`: the bytes point into the input when the string has no escapes.
    package mutating func withStringBytes<Result>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(JSONError) -> Result
    ) throws(JSONError) -> Result {
        let start = offset + 1
        let index = plainRunEnd(from: start)
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            offset = index + 1
            return try body(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        }
        return try withDecodedStringBytes(body)
    }

    /// The bytes of the string at the offset (which holds its opening quote) when it is plain
    /// ASCII without escapes, moving past it; nil, the offset unchanged, for any other string.
    /// Not generic: ``withStringBytes(_:)`` called from another module runs unspecialized
    /// (~130 instructions a call), so decoders there try this first.
    package mutating func plainStringBytes() -> UnsafeBufferPointer<UInt8>? {
        let start = offset + 1
        let end = plainRunEnd(from: start)
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return nil }
        offset = end + 1
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }

    /// ``withStringBytes(_:)`` for strings with escapes or non-ASCII bytes: decoded (and validated)
    /// the general way. A function of its own so that the fast path above needs no `Result?`:
    /// called from another module, the unspecialized generic looked up that type's metadata on
    /// every call, ~430 instructions.
    private mutating func withDecodedStringBytes<Result>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(JSONError) -> Result
    ) throws(JSONError) -> Result {
        var text = try parseString()
        var result: Result?
        var failure: JSONError?
        text.withUTF8 { utf8 in
            do throws(JSONError) { result = try body(utf8) } catch { failure = error }
        }
        if let failure { throw failure }
        return result!
    }

    /// The offset of the first byte from `index` on that ends a run of plain string content: a
    /// quote, a backslash, a control character or a non-ASCII byte (or the end). Eight bytes at a
    /// time: string content is most of an event's bytes, and a byte loop spent ~13 instructions
    /// on each.
    @inline(__always)
    func plainRunEnd(from index: Int) -> Int {
        Self.plainRunEnd(in: bytes, from: index)
    }

    /// ``plainRunEnd(from:)`` in any buffer.
    @inlinable @inline(__always)
    package static func plainRunEnd(in bytes: UnsafeBufferPointer<UInt8>, from index: Int) -> Int {
        guard let base = bytes.baseAddress else { return index }
        var index = index
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            // A zero byte in `quote` or `backslash`, a byte below 0x20, or a high bit: not plain.
            let special =
                ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
                | word
            // The lowest flag marks the first such byte exactly (a borrow only sets flags above
            // it): no byte loop over the word, which cost ~7 instructions a byte on short strings.
            let flags = special & highs
            if flags != 0 { return index + flags.trailingZeroBitCount >> 3 }
            index += 8
        }
        while index < bytes.count {
            let byte = base[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
            index += 1
        }
        return index
    }

    /// Parses a string at the current offset (which holds its opening quote).
    package mutating func parseString() throws(JSONError) -> String {
        offset += 1
        let start = offset
        // Fast path: plain ASCII up to the closing quote, no escapes.
        offset = plainRunEnd(from: start)
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") {
            let string = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
            offset += 1
            return string
        }
        var scratch: [UInt8] = []
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<offset]))
        while true {
            guard offset < bytes.count else { throw JSONError(.unexpectedEnd, at: offset) }
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                offset += 1
                return String(decoding: scratch, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &scratch)
            case 0..<0x20:
                throw JSONError(.controlCharacterInString, at: offset)
            case 0x80...:
                try copyUTF8Scalar(into: &scratch)
            default:
                scratch.append(byte)
                offset += 1
            }
        }
    }

    private mutating func parseEscape(into scratch: inout [UInt8]) throws(JSONError) {
        let scalar = try parseEscapedScalar()
        if scalar.isASCII {
            scratch.append(UInt8(truncatingIfNeeded: scalar.value))
        } else {
            scratch.append(contentsOf: UTF8.encode(scalar)!)
        }
    }

    /// Reads one escape sequence (the offset is at its backslash) and returns the scalar it names.
    mutating func parseEscapedScalar() throws(JSONError) -> Unicode.Scalar {
        offset += 1
        guard offset < bytes.count else { throw JSONError(.unexpectedEnd, at: offset) }
        let escaped = bytes[offset]
        offset += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(escaped)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"),
                    bytes[offset + 1] == UInt8(ascii: "u")
                else { throw JSONError(.invalidUnicodeEscape, at: offset) }
                offset += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw JSONError(.invalidUnicodeEscape, at: offset) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw JSONError(.invalidUnicodeEscape, at: offset)
            }
            return Unicode.Scalar(scalar)!
        default:
            throw JSONError(.invalidEscape, at: offset - 1)
        }
    }

    private mutating func parseHex4() throws(JSONError) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw JSONError(.unexpectedEnd, at: offset) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONError(.invalidEscape, at: offset)
            }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    /// Validates one multi-byte UTF-8 scalar (RFC 3629 table) and copies it.
    private mutating func copyUTF8Scalar(into scratch: inout [UInt8]) throws(JSONError) {
        let start = offset
        try skipUTF8Scalar()
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<offset]))
    }

    /// Validates one multi-byte UTF-8 scalar (RFC 3629 table) and moves past it.
    @discardableResult
    mutating func skipUTF8Scalar() throws(JSONError) -> Int {
        let lead = bytes[offset]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: (length, lower) = (3, 0xA0)
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: (length, upper) = (3, 0x9F)
        case 0xF0: (length, lower) = (4, 0x90)
        case 0xF1...0xF3: length = 4
        case 0xF4: (length, upper) = (4, 0x8F)
        default: throw JSONError(.invalidUTF8, at: offset)
        }
        guard offset + length <= bytes.count else { throw JSONError(.invalidUTF8, at: offset) }
        let second = bytes[offset + 1]
        guard second >= lower, second <= upper else { throw JSONError(.invalidUTF8, at: offset + 1) }
        for index in 2..<max(length, 2) where bytes[offset + index] & 0xC0 != 0x80 {
            throw JSONError(.invalidUTF8, at: offset + index)
        }
        offset += length
        return length
    }
}
