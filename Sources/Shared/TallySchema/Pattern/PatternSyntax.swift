/// The syntax tree of an ECMA-262 pattern, in the subset tally matches itself.
indirect enum PatternNode: Hashable, Sendable {
    case empty
    case scalars(ScalarSet)
    case sequence([PatternNode])
    case alternation([PatternNode])
    case repetition(PatternNode, min: Int, max: Int?)
    case inputStart
    case inputEnd
    case wordBoundary(negated: Bool)
}

/// Why a pattern was not compiled by ``PatternParser``.
enum PatternParseError: Error, Hashable {
    /// Valid ECMA-262, but outside the subset (lookaround, back-references, …): use the fallback engine.
    case unsupported(String)
    /// Not a valid pattern.
    case invalid(String)
}

/// Parses ECMA-262 patterns (JSON Schema's `pattern` dialect) into ``PatternNode``s.
///
/// Supported: literals and escapes, `.`, classes with ranges and negation, `\d \w \s` and their
/// negations, `\b \B`, `^ $`, groups (capturing, non-capturing, named), alternation, and the
/// quantifiers `* + ? {n} {n,} {n,m}` (greedy or lazy: only whether a match exists matters).
struct PatternParser {
    private let scalars: [UInt32]
    private var index = 0

    init(_ pattern: String) {
        scalars = pattern.unicodeScalars.map(\.value)
    }

    static func parse(_ pattern: String) throws(PatternParseError) -> PatternNode {
        var parser = PatternParser(pattern)
        let node = try parser.parseAlternation()
        guard parser.index == parser.scalars.count else { throw .invalid("unmatched ')'") }
        return node
    }

    private var current: UInt32? { index < scalars.count ? scalars[index] : nil }

    private mutating func parseAlternation() throws(PatternParseError) -> PatternNode {
        var branches = [try parseSequence()]
        while current == ascii("|") {
            index += 1
            branches.append(try parseSequence())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func parseSequence() throws(PatternParseError) -> PatternNode {
        var items: [PatternNode] = []
        while let scalar = current, scalar != ascii("|"), scalar != ascii(")") {
            let atom = try parseAtom()
            items.append(try parseQuantifier(atom))
        }
        return items.count == 1 ? items[0] : (items.isEmpty ? .empty : .sequence(items))
    }

    private mutating func parseQuantifier(_ atom: PatternNode) throws(PatternParseError) -> PatternNode {
        guard let scalar = current else { return atom }
        var bounds: (Int, Int?)?
        switch scalar {
        case ascii("*"): bounds = (0, nil)
        case ascii("+"): bounds = (1, nil)
        case ascii("?"): bounds = (0, 1)
        case ascii("{"):
            let start = index
            if let parsed = parseBraces() { bounds = parsed } else { index = start }
            if bounds == nil { return atom }  // a literal '{', as ECMA-262 Annex B allows
        default: return atom
        }
        if scalar != ascii("{") { index += 1 }
        switch atom {
        case .inputStart, .inputEnd, .wordBoundary: throw .invalid("nothing to repeat")
        default: break
        }
        if current == ascii("?") { index += 1 }  // lazy: the same for "is there a match"
        guard let (min, max) = bounds else { return atom }
        if let max, max < min { throw .invalid("numbers out of order in {} quantifier") }
        if min > 1_000 || (max ?? 0) > 1_000 { throw .unsupported("repetition counts over 1000") }
        return .repetition(atom, min: min, max: max)
    }

    /// `{n}`, `{n,}`, `{n,m}`; nil (and no input consumed) when it is not a quantifier.
    private mutating func parseBraces() -> (Int, Int?)? {
        index += 1
        guard let min = parseNumber() else { return nil }
        if current == ascii("}") {
            index += 1
            return (min, min)
        }
        guard current == ascii(",") else { return nil }
        index += 1
        if current == ascii("}") {
            index += 1
            return (min, nil)
        }
        guard let max = parseNumber(), current == ascii("}") else { return nil }
        index += 1
        return (min, max)
    }

    private mutating func parseNumber() -> Int? {
        var value: Int?
        while let scalar = current, (ascii("0")...ascii("9")).contains(scalar) {
            value = min((value ?? 0) * 10 + Int(scalar - ascii("0")), 1_000_000)
            index += 1
        }
        return value
    }

    private mutating func parseAtom() throws(PatternParseError) -> PatternNode {
        let scalar = scalars[index]
        index += 1
        switch scalar {
        case ascii("^"): return .inputStart
        case ascii("$"): return .inputEnd
        case ascii("."): return .scalars(.dot)
        case ascii("["): return .scalars(try parseClass())
        case ascii("("):
            if current == ascii("?") {
                index += 1
                switch current {
                case ascii(":"): index += 1
                case ascii("<"):
                    index += 1
                    guard current != ascii("="), current != ascii("!") else { throw .unsupported("lookbehind") }
                    while let name = current, name != ascii(">") { index += 1 }
                    guard current == ascii(">") else { throw .invalid("unterminated group name") }
                    index += 1
                case ascii("="), ascii("!"): throw .unsupported("lookahead")
                default: throw .invalid("invalid group")
                }
            }
            let inner = try parseAlternation()
            guard current == ascii(")") else { throw .invalid("missing ')'") }
            index += 1
            return inner
        case ascii("\\"): return try parseEscape(inClass: false)
        case ascii("*"), ascii("+"), ascii("?"): throw .invalid("nothing to repeat")
        default: return .scalars(ScalarSet([scalar...scalar]))
        }
    }

    private mutating func parseClass() throws(PatternParseError) -> ScalarSet {
        var negated = false
        if current == ascii("^") {
            negated = true
            index += 1
        }
        var set = ScalarSet()
        while let scalar = current, scalar != ascii("]") {
            let low = try parseClassAtom()
            if current == ascii("-"), index + 1 < scalars.count, scalars[index + 1] != ascii("]") {
                index += 1
                let high = try parseClassAtom()
                guard case .single(let lower) = low, case .single(let upper) = high else {
                    throw .invalid("class range with a class escape")
                }
                guard lower <= upper else { throw .invalid("range out of order in character class") }
                set.insert(lower...upper)
            } else {
                switch low {
                case .single(let value): set.insert(value...value)
                case .set(let other): set.formUnion(other)
                }
            }
        }
        guard current == ascii("]") else { throw .invalid("missing ']'") }
        index += 1
        return negated ? set.inverted : set
    }

    private enum ClassAtom {
        case single(UInt32)
        case set(ScalarSet)
    }

    private mutating func parseClassAtom() throws(PatternParseError) -> ClassAtom {
        let scalar = scalars[index]
        index += 1
        guard scalar == ascii("\\") else { return .single(scalar) }
        if current == ascii("b") {
            index += 1
            return .single(0x08)
        }
        switch try parseEscape(inClass: true) {
        case .scalars(let set) where set.ranges.count == 1 && set.ranges[0].count == 1:
            return .single(set.ranges[0].lowerBound)
        case .scalars(let set): return .set(set)
        default: throw .invalid("invalid escape in character class")
        }
    }

    private mutating func parseEscape(inClass: Bool) throws(PatternParseError) -> PatternNode {
        guard let scalar = current else { throw .invalid("\\ at end of pattern") }
        index += 1
        func single(_ value: UInt32) -> PatternNode { .scalars(ScalarSet([value...value])) }
        switch scalar {
        case ascii("d"): return .scalars(.digits)
        case ascii("D"): return .scalars(ScalarSet.digits.inverted)
        case ascii("w"): return .scalars(.word)
        case ascii("W"): return .scalars(ScalarSet.word.inverted)
        case ascii("s"): return .scalars(.space)
        case ascii("S"): return .scalars(ScalarSet.space.inverted)
        case ascii("b"): return .wordBoundary(negated: false)
        case ascii("B"): return .wordBoundary(negated: true)
        case ascii("t"): return single(0x09)
        case ascii("n"): return single(0x0A)
        case ascii("v"): return single(0x0B)
        case ascii("f"): return single(0x0C)
        case ascii("r"): return single(0x0D)
        case ascii("0"): return single(0)
        case ascii("1")...ascii("9"): throw .unsupported("back-reference")
        case ascii("x"): return single(try parseHex(digits: 2))
        case ascii("u"):
            guard current != ascii("{") else { throw .unsupported("\\u{…} escape") }
            return single(try parseHex(digits: 4))
        case ascii("c"), ascii("p"), ascii("P"), ascii("k"): throw .unsupported("\\\(Unicode.Scalar(scalar)!) escape")
        default:
            // Identity escapes: punctuation stands for itself.
            if scalar < 0x80, ScalarSet.word.contains(scalar) { throw .invalid("invalid escape") }
            return single(scalar)
        }
    }

    private mutating func parseHex(digits: Int) throws(PatternParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let scalar = current, let digit = Self.hexValue(scalar) else { throw .invalid("invalid hex escape") }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private static func hexValue(_ scalar: UInt32) -> UInt32? {
        switch scalar {
        case 0x30...0x39: scalar - 0x30
        case 0x41...0x46: scalar - 0x41 + 10
        case 0x61...0x66: scalar - 0x61 + 10
        default: nil
        }
    }

    private func ascii(_ character: Unicode.Scalar) -> UInt32 { character.value }
}
