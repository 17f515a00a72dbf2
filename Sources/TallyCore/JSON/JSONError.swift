/// Why a text is not acceptable JSON, with the byte offset where parsing stopped.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem, stable across releases.
    public enum Reason: String, Sendable, Hashable {
        case unexpectedEnd = "unexpected_end"
        case unexpectedCharacter = "unexpected_character"
        case invalidNumber = "invalid_number"
        case invalidEscape = "invalid_escape"
        case invalidUnicodeEscape = "invalid_unicode_escape"
        case controlCharacterInString = "control_character_in_string"
        case invalidUTF8 = "invalid_utf8"
        case tooDeep = "too_deep"
        case trailingContent = "trailing_content"
    }

    /// The kind of problem.
    public var reason: Reason
    /// The byte offset in the input.
    public var offset: Int

    /// Creates an error.
    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        switch reason {
        case .unexpectedEnd: "JSON ends too early (byte \(offset))"
        case .unexpectedCharacter: "unexpected character at byte \(offset)"
        case .invalidNumber: "invalid number at byte \(offset)"
        case .invalidEscape: "invalid escape sequence at byte \(offset)"
        case .invalidUnicodeEscape: "invalid \\u escape (lone surrogate?) at byte \(offset)"
        case .controlCharacterInString: "unescaped control character in a string at byte \(offset)"
        case .invalidUTF8: "invalid UTF-8 at byte \(offset)"
        case .tooDeep: "nested too deep at byte \(offset)"
        case .trailingContent: "content after the JSON value at byte \(offset)"
        }
    }
}
