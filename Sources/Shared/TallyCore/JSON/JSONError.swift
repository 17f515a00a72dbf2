/// Why a text is not acceptable JSON, with the byte offset where parsing stopped.
///
/// The description names the problem and the offset, never the input's bytes: the input is an
/// event, and its values stay out of logs and error messages.
package struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem, stable across releases: match on it with `==`, print it for its
    /// snake_case name (`unexpected_end`). A struct, so that a kind added later breaks no `switch`.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String {
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
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The text ends inside a value.
        package static let unexpectedEnd = Code(.unexpectedEnd)
        /// A byte that cannot start or continue a value here.
        package static let unexpectedCharacter = Code(.unexpectedCharacter)
        /// A number outside RFC 8259's grammar (`01`, `1.`, `-`).
        package static let invalidNumber = Code(.invalidNumber)
        /// A backslash escape JSON does not have (`\x`).
        package static let invalidEscape = Code(.invalidEscape)
        /// A `\u` escape that is not four hex digits, or a lone surrogate.
        package static let invalidUnicodeEscape = Code(.invalidUnicodeEscape)
        /// A control character (below U+0020) unescaped inside a string.
        package static let controlCharacterInString = Code(.controlCharacterInString)
        /// Bytes that are not UTF-8.
        package static let invalidUTF8 = Code(.invalidUTF8)
        /// Arrays and objects nested deeper than the parser's limit.
        package static let tooDeep = Code(.tooDeep)
        /// Something after the value other than whitespace.
        package static let trailingContent = Code(.trailingContent)

        /// The stable snake_case name (`unexpected_end`).
        package var description: String { base.rawValue }
    }

    /// The kind of problem.
    package internal(set) var code: Code
    /// The byte offset in the input.
    package internal(set) var offset: Int

    /// Creates an error.
    package init(_ code: Code, at offset: Int) {
        self.code = code
        self.offset = offset
    }

    package var description: String {
        switch code {
        case .unexpectedEnd: "JSON ends too early (byte \(offset))"
        case .unexpectedCharacter: "unexpected character at byte \(offset)"
        case .invalidNumber: "invalid number at byte \(offset)"
        case .invalidEscape: "invalid escape sequence at byte \(offset)"
        case .invalidUnicodeEscape: "invalid \\u escape (lone surrogate?) at byte \(offset)"
        case .controlCharacterInString: "unescaped control character in a string at byte \(offset)"
        case .invalidUTF8: "invalid UTF-8 at byte \(offset)"
        case .tooDeep: "nested too deep at byte \(offset)"
        case .trailingContent: "content after the JSON value at byte \(offset)"
        default: "\(code) at byte \(offset)"
        }
    }
}
