/// The command line's selectors and filters (docs/reports.md, The CLI):
/// `NAME|NAME where FIELD OP VALUE and …`, `FIELD in (a, b)`, `FIELD is not set`; values quoted
/// with `'…'` (`''` for a quote) or `"…"` when they hold spaces or punctuation.
package enum SelectorSyntax {
    enum Token: Equatable {
        case word(String, quoted: Bool)
        case op(String)
        case open, close, comma, bar
    }

    static func tokens(_ text: String) throws(ReportError) -> [Token] {
        var tokens: [Token] = []
        var characters = Array(text)[...]
        while let character = characters.first {
            if character.isWhitespace {
                characters = characters.dropFirst()
            } else if character == "'" || character == "\"" {
                characters = characters.dropFirst()
                var word = ""
                var closed = false
                while let next = characters.first {
                    characters = characters.dropFirst()
                    if next == character {
                        if character == "'", characters.first == "'" {
                            word.append("'")
                            characters = characters.dropFirst()
                            continue
                        }
                        closed = true
                        break
                    }
                    word.append(next)
                }
                guard closed else {
                    throw ReportError(.syntax, path: "", "an unclosed quote in \(text.debugDescription)")
                }
                tokens.append(.word(word, quoted: true))
            } else if "=!<>".contains(character) {
                var op = String(character)
                characters = characters.dropFirst()
                if characters.first == "=" {
                    op.append("=")
                    characters = characters.dropFirst()
                }
                guard op != "!" else { throw ReportError(.syntax, path: "", "\"!\" alone is no operator: use !=") }
                tokens.append(.op(op))
            } else if character == "(" {
                tokens.append(.open)
                characters = characters.dropFirst()
            } else if character == ")" {
                tokens.append(.close)
                characters = characters.dropFirst()
            } else if character == "," {
                tokens.append(.comma)
                characters = characters.dropFirst()
            } else if character == "|" {
                tokens.append(.bar)
                characters = characters.dropFirst()
            } else {
                var word = ""
                while let next = characters.first, !next.isWhitespace, !"=!<>(),|'\"".contains(next) {
                    word.append(next)
                    characters = characters.dropFirst()
                }
                tokens.append(.word(word, quoted: false))
            }
        }
        return tokens
    }

    /// `NAMES [where FILTER and …]`.
    package static func selector(_ text: String) throws(ReportError) -> EventSelector {
        var tokens = try tokens(text)[...]
        var names: [String] = []
        while let token = tokens.first {
            if case .word(let word, let quoted) = token, !quoted, word == "where" { break }
            tokens = tokens.dropFirst()
            switch token {
            case .word(let word, _): names.append(word)
            case .bar: continue
            default: throw ReportError(.syntax, path: "", "\(text.debugDescription): event names, then `where FILTER`")
            }
        }
        guard !names.isEmpty else {
            throw ReportError(.syntax, path: "", "\(text.debugDescription): name at least one event")
        }
        var filters: [ReportFilter] = []
        if !tokens.isEmpty {
            tokens = tokens.dropFirst()  // where
            filters = try self.filters(&tokens, text: text)
        }
        return EventSelector(names: names, filters: filters)
    }

    /// `FILTER and FILTER …` (the `--where` option's text).
    package static func filters(_ text: String) throws(ReportError) -> [ReportFilter] {
        var tokens = try tokens(text)[...]
        return try filters(&tokens, text: text)
    }

    private static func filters(_ tokens: inout ArraySlice<Token>, text: String) throws(ReportError) -> [ReportFilter] {
        var filters: [ReportFilter] = []
        while true {
            filters.append(try filter(&tokens, text: text))
            guard let next = tokens.first else { break }
            guard case .word(let word, false) = next, word == "and" else {
                throw ReportError(.syntax, path: "", "\(text.debugDescription): filters are joined with `and`")
            }
            tokens = tokens.dropFirst()
        }
        return filters
    }

    private static func word(_ tokens: inout ArraySlice<Token>) -> (String, quoted: Bool)? {
        guard case .word(let word, let quoted)? = tokens.first else { return nil }
        tokens = tokens.dropFirst()
        return (word, quoted)
    }

    private static func filter(_ tokens: inout ArraySlice<Token>, text: String) throws(ReportError) -> ReportFilter {
        let usage =
            "\(text.debugDescription): a filter is FIELD OP VALUE (=, !=, <, <=, >, >=, contains, in (…), not in (…), is set, is not set)"
        guard let (fieldText, _) = word(&tokens) else { throw ReportError(.syntax, path: "", usage) }
        let field: ReportField
        do throws(ReportError) { field = try ReportField(fieldText) } catch {
            throw ReportError(.syntax, path: "", "\(text.debugDescription): \(error.message)")
        }
        let op: ReportFilter.Operator
        var values: [String] = []
        switch tokens.first {
        case .op(let symbol)?:
            tokens = tokens.dropFirst()
            guard let parsed = ReportFilter.Operator(spelling: symbol) else {
                throw ReportError(.syntax, path: "", usage)
            }
            op = parsed
        case .word(let keyword, false)?:
            tokens = tokens.dropFirst()
            switch keyword {
            case "contains": op = .contains
            case "in": op = .isIn
            case "not":
                guard case .word("in", false)? = tokens.first else { throw ReportError(.syntax, path: "", usage) }
                tokens = tokens.dropFirst()
                op = .notIn
            case "is":
                if case .word("not", false)? = tokens.first {
                    tokens = tokens.dropFirst()
                    guard case .word("set", false)? = tokens.first else { throw ReportError(.syntax, path: "", usage) }
                    tokens = tokens.dropFirst()
                    op = .isNotSet
                } else {
                    guard case .word("set", false)? = tokens.first else { throw ReportError(.syntax, path: "", usage) }
                    tokens = tokens.dropFirst()
                    op = .isSet
                }
            default: throw ReportError(.syntax, path: "", usage)
            }
        default: throw ReportError(.syntax, path: "", usage)
        }
        switch op.arity {
        case .none: break
        case .one:
            guard let (value, _) = word(&tokens) else { throw ReportError(.syntax, path: "", usage) }
            values = [value]
        case .list:
            guard tokens.first == .open else {
                throw ReportError(.syntax, path: "", "\(text.debugDescription): in takes (a, b, …)")
            }
            tokens = tokens.dropFirst()
            while true {
                guard let (value, _) = word(&tokens) else { throw ReportError(.syntax, path: "", usage) }
                values.append(value)
                if tokens.first == .comma {
                    tokens = tokens.dropFirst()
                    continue
                }
                guard tokens.first == .close else { throw ReportError(.syntax, path: "", usage) }
                tokens = tokens.dropFirst()
                break
            }
        }
        do throws(ReportError) {
            return try ReportFilter(field: field, op: op, values: values)
        } catch {
            throw ReportError(error.code, path: "", "\(text.debugDescription): \(error.message)")
        }
    }

    /// `SELECTOR between A and B` (or `between A B`): an exclusion of the command line.
    package static func exclusion(_ text: String) throws(ReportError) -> FunnelDefinition.Exclusion {
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let at = words.lastIndex(of: "between") else {
            throw ReportError(.syntax, path: "", "\(text.debugDescription): end with `between A and B` (step numbers)")
        }
        let bounds = words[(at + 1)...].filter { $0 != "and" }
        guard bounds.count == 2, let from = Int(bounds[0]), let to = Int(bounds[1]) else {
            throw ReportError(.syntax, path: "", "\(text.debugDescription): end with `between A and B` (step numbers)")
        }
        let selector = try self.selector(words[..<at].joined(separator: " "))
        return FunnelDefinition.Exclusion(event: selector, from: from, to: to)
    }
}
