/// Turns plan names (`episode_id`, `Order Completed`, `$pageview`, `3d_touch`) into Swift
/// identifiers: lowerCamelCase for cases, parameters and fields, UpperCamelCase for types.
///
/// Words are split at anything that is not an ASCII letter or digit. A word written in one case
/// (`episode`, `URL`) is normalized, with common acronyms in capitals (`episode_id` →
/// `episodeID`); a word in mixed case (`pageUrl`, `PerformanceTiming`) keeps its inner casing. A
/// name that needed more than splitting at `_`, `-` and spaces is reported by the caller.
package enum SwiftNames {
    /// What a conversion did beyond the usual splitting, for the report.
    package struct Conversion: Sendable, Hashable {
        /// The identifier, unescaped (a keyword stays a keyword: see ``escaped(_:)``).
        package var identifier: String
        /// Why the name is not used as written, or nil when the conversion was the usual one.
        package var note: String?
    }

    /// Words written in capitals inside an identifier.
    static let acronyms: Set<String> = [
        "id", "ids", "url", "uri", "uuid", "ip", "json", "api", "html", "http", "https",
    ]

    /// Keywords that a backtick makes usable as a name in every position the generator uses.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "inout", "internal",
        "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static", "struct",
        "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do", "else",
        "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while", "as",
        "await", "false", "is", "nil", "super", "throws", "true", "try", "any", "some", "package", "consume",
        "borrowing", "consuming",
    ]

    /// Names that even backticks do not make usable as a case, parameter or member everywhere.
    static let unusable: Set<String> = ["self", "Self", "init", "Type", "Protocol", "_", "Any"]

    /// `episode_list_viewed` → `episodeListViewed`.
    package static func lowerCamel(_ name: String) -> Conversion {
        convert(name, upperFirst: false)
    }

    /// `episode_list` → `EpisodeList`.
    package static func upperCamel(_ name: String) -> Conversion {
        convert(name, upperFirst: true)
    }

    /// The identifier as source text: in backticks when it is a keyword.
    package static func escaped(_ identifier: String) -> String {
        keywords.contains(identifier) ? "`\(identifier)`" : identifier
    }

    private static func convert(_ name: String, upperFirst: Bool) -> Conversion {
        var words: [Substring] = []
        var start: String.Index?
        var unusual = false
        for index in name.indices {
            let character = name[index]
            if character.isASCII, character.isLetter || character.isNumber {
                if start == nil { start = index }
            } else {
                if let wordStart = start { words.append(name[wordStart..<index]) }
                start = nil
                if character != "_" && character != " " && character != "-" { unusual = true }
            }
        }
        if let start { words.append(name[start...]) }
        var identifier = ""
        for (position, word) in words.enumerated() {
            identifier += format(word, first: position == 0, upperFirst: upperFirst)
        }
        var notes: [String] = []
        if unusual { notes.append("has characters a Swift identifier cannot") }
        if identifier.isEmpty {
            identifier = upperFirst ? "Unnamed" : "unnamed"
            notes.append("has no letters or digits")
        } else if let first = identifier.first, first.isNumber {
            identifier = "_" + identifier
            notes.append("starts with a digit")
        }
        if unusable.contains(identifier) {
            identifier += "_"
            notes.append("is reserved in Swift")
        } else if keywords.contains(identifier) {
            notes.append("is a Swift keyword (escaped with backticks)")
        }
        return Conversion(identifier: identifier, note: notes.isEmpty ? nil : notes.joined(separator: ", "))
    }

    private static func format(_ word: Substring, first: Bool, upperFirst: Bool) -> String {
        let isLower = word.allSatisfy { !$0.isUppercase }
        let isUpper = word.allSatisfy { !$0.isLowercase }
        if isLower || isUpper {
            let lower = word.lowercased()
            if first && !upperFirst { return lower }
            if acronyms.contains(lower) { return lower.uppercased() }
            return lower.prefix(1).uppercased() + lower.dropFirst()
        }
        // Mixed case: the author's casing inside the word is kept.
        if first && !upperFirst { return word.prefix(1).lowercased() + word.dropFirst() }
        return word.prefix(1).uppercased() + word.dropFirst()
    }
}
