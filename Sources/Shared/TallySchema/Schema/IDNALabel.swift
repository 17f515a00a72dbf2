import Foundation

/// IDNA 2008 A-labels (`xn--…`, RFC 5890–5892), for the `hostname` format.
///
/// Checks what the Swift standard library's Unicode properties allow: Punycode decoding, the
/// derived property of every code point (RFC 5892 §3, with its exception list), NFC, the hyphen
/// and leading-mark rules, and the contextual rules of RFC 5892 Appendix A. Approximations, because
/// the standard library exposes neither scripts nor joining types: the scripts the CONTEXTO rules
/// name (Greek, Hebrew, Hiragana, Katakana, Han) are recognized by their code point ranges, and
/// the ZERO WIDTH NON-JOINER rule knows the joining types of Arabic, Syriac, N'Ko, Mongolian and
/// Phags-pa letters (after a virama it needs none). Not checked: the Bidi rule (RFC 5893), which
/// needs each code point's bidirectional class.
enum IDNALabel {
    /// Whether `encoded` (an A-label without its `xn--`) decodes to a valid U-label.
    static func isValidALabel(_ encoded: SchemaFormat.Bytes) -> Bool {
        guard let label = decodePunycode(encoded), label.contains(where: { $0.value > 0x7F }) else { return false }
        return isValidULabel(label)
    }

    private enum DerivedProperty {
        case pvalid, contextJ, contextO, disallowed
    }

    private static func isValidULabel(_ label: [Unicode.Scalar]) -> Bool {
        // RFC 5891 §4.2.3.1: hyphens are not first, last, or third and fourth.
        if label.first == "-" || label.last == "-" { return false }
        if label.count >= 4, label[2] == "-", label[3] == "-" { return false }
        // §4.2.3.2: a label does not begin with a combining mark.
        switch label[0].properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return false
        default: break
        }
        var text = ""
        text.unicodeScalars.append(contentsOf: label)
        guard text.precomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(label) else { return false }
        for index in label.indices {
            switch derivedProperty(label[index]) {
            case .pvalid: continue
            case .disallowed: return false
            case .contextJ: guard isJoinerAllowed(in: label, at: index) else { return false }
            case .contextO: guard isContextOAllowed(in: label, at: index) else { return false }
            }
        }
        return true
    }

    /// RFC 5892 §3, in its order of precedence.
    private static func derivedProperty(_ scalar: Unicode.Scalar) -> DerivedProperty {
        let value = scalar.value
        switch value {
        // §2.6 Exceptions.
        case 0x00DF, 0x03C2, 0x06FD, 0x06FE, 0x0F0B, 0x3007: return .pvalid
        case 0x00B7, 0x0375, 0x05F3, 0x05F4, 0x30FB: return .contextO
        case 0x0640, 0x07FA, 0x302E, 0x302F, 0x3031...0x3035, 0x303B: return .disallowed
        // LDH and the join controls.
        case 0x61...0x7A, 0x30...0x39, 0x2D: return .pvalid
        case 0x200C, 0x200D: return .contextJ
        // Arabic-Indic digits: Appendix A.8 and A.9.
        case 0x0660...0x0669, 0x06F0...0x06F9: return .contextO
        // IgnorableBlocks and OldHangulJamo.
        case 0x20D0...0x20FF, 0x1D100...0x1D24F, 0x1100...0x11FF, 0xA960...0xA97F, 0xD7B0...0xD7FF:
            return .disallowed
        default: break
        }
        let properties = scalar.properties
        if properties.generalCategory == .unassigned || properties.changesWhenNFKCCaseFolded
            || properties.isDefaultIgnorableCodePoint || properties.isWhitespace || properties.isNoncharacterCodePoint
        {
            return .disallowed
        }
        switch properties.generalCategory {
        case .lowercaseLetter, .otherLetter, .modifierLetter, .nonspacingMark, .spacingMark, .decimalNumber:
            return .pvalid
        default:
            return .disallowed
        }
    }

    /// Appendix A.1 and A.2: ZERO WIDTH NON-JOINER and ZERO WIDTH JOINER.
    private static func isJoinerAllowed(in label: [Unicode.Scalar], at index: Int) -> Bool {
        if index > 0, label[index - 1].properties.canonicalCombiningClass.rawValue == 9 { return true }  // virama
        guard label[index].value == 0x200C else { return false }
        // (Joining_Type:{L,D})(Joining_Type:T)* ZWNJ (Joining_Type:T)*(Joining_Type:{R,D})
        var before = index - 1
        while before >= 0, joiningType(label[before]) == "T" { before -= 1 }
        var after = index + 1
        while after < label.count, joiningType(label[after]) == "T" { after += 1 }
        guard before >= 0, after < label.count else { return false }
        return "LD".contains(joiningType(label[before])) && "RD".contains(joiningType(label[after]))
    }

    /// Appendix A.3 to A.9.
    private static func isContextOAllowed(in label: [Unicode.Scalar], at index: Int) -> Bool {
        let previous = index > 0 ? label[index - 1].value : nil
        let next = index + 1 < label.count ? label[index + 1].value : nil
        switch label[index].value {
        case 0x00B7: return previous == 0x6C && next == 0x6C
        case 0x0375: return next.map(isGreek) ?? false
        case 0x05F3, 0x05F4: return previous.map(isHebrew) ?? false
        case 0x30FB:
            return label.contains {
                $0.value != 0x30FB && (isHiragana($0.value) || isKatakana($0.value) || isHan($0.value))
            }
        case 0x0660...0x0669: return !label.contains { (0x06F0...0x06F9).contains($0.value) }
        case 0x06F0...0x06F9: return !label.contains { (0x0660...0x0669).contains($0.value) }
        default: return false
        }
    }

    // MARK: Punycode (RFC 3492 §6.2)

    private static func decodePunycode(_ input: SchemaFormat.Bytes) -> [Unicode.Scalar]? {
        let base = 36
        let (tMin, tMax) = (1, 26)
        var output: [UInt32] = []
        var position = input.startIndex
        if let delimiter = input.lastIndex(of: UInt8(ascii: "-")) {
            output = input[..<delimiter].map(UInt32.init)
            position = delimiter + 1
        }
        var (code, index, bias) = (128, 0, 72)
        while position < input.endIndex {
            let oldIndex = index
            var weight = 1
            var k = base
            while true {
                guard position < input.endIndex, let digit = digitValue(input[position]) else { return nil }
                position += 1
                let (step, stepOverflow) = digit.multipliedReportingOverflow(by: weight)
                let (sum, sumOverflow) = index.addingReportingOverflow(step)
                guard !stepOverflow, !sumOverflow else { return nil }
                index = sum
                let threshold = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                if digit < threshold { break }
                let (nextWeight, weightOverflow) = weight.multipliedReportingOverflow(by: base - threshold)
                guard !weightOverflow else { return nil }
                weight = nextWeight
                k += base
            }
            let length = output.count + 1
            bias = adapt(index - oldIndex, length: length, isFirst: oldIndex == 0)
            code += index / length
            index %= length
            guard code <= 0x10FFFF, !(0xD800...0xDFFF).contains(code) else { return nil }
            output.insert(UInt32(code), at: index)
            index += 1
        }
        return output.compactMap(Unicode.Scalar.init)
    }

    private static func adapt(_ delta: Int, length: Int, isFirst: Bool) -> Int {
        var delta = isFirst ? delta / 700 : delta / 2
        delta += delta / length
        var k = 0
        while delta > 35 * 26 / 2 {
            delta /= 35
            k += 36
        }
        return k + 36 * delta / (delta + 38)
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(byte - UInt8(ascii: "a"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0")) + 26
        default: nil
        }
    }

    // MARK: Scripts and joining types, by code point range

    private static func isGreek(_ value: UInt32) -> Bool {
        switch value {
        case 0x0370...0x0373, 0x0375...0x0377, 0x037A...0x037D, 0x037F, 0x0384, 0x0386, 0x0388...0x03E1,
            0x03F0...0x03FF, 0x1D26...0x1D2A, 0x1D5D...0x1D61, 0x1D66...0x1D6A, 0x1DBF, 0x1F00...0x1FFE, 0x2126,
            0xAB65, 0x10140...0x1018E, 0x101A0, 0x1D200...0x1D245:
            true
        default: false
        }
    }

    private static func isHebrew(_ value: UInt32) -> Bool {
        switch value {
        case 0x0591...0x05C7, 0x05D0...0x05EA, 0x05EF...0x05F4, 0xFB1D...0xFB4F: true
        default: false
        }
    }

    private static func isHiragana(_ value: UInt32) -> Bool {
        switch value {
        case 0x3041...0x3096, 0x309D...0x309F, 0x1B001...0x1B11F, 0x1B150...0x1B152, 0x1F200: true
        default: false
        }
    }

    private static func isKatakana(_ value: UInt32) -> Bool {
        switch value {
        case 0x30A1...0x30FA, 0x30FD...0x30FF, 0x31F0...0x31FF, 0x32D0...0x32FE, 0x3300...0x3357, 0xFF66...0xFF6F,
            0xFF71...0xFF9D, 0x1AFF0...0x1B000, 0x1B120...0x1B122, 0x1B164...0x1B167:
            true
        default: false
        }
    }

    private static func isHan(_ value: UInt32) -> Bool {
        switch value {
        case 0x2E80...0x2E99, 0x2E9B...0x2EF3, 0x2F00...0x2FD5, 0x3005, 0x3007, 0x3021...0x3029, 0x3038...0x303B,
            0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFA6D, 0xFA70...0xFAD9, 0x20000...0x2A6DF, 0x2A700...0x2EBE0,
            0x2F800...0x2FA1D, 0x30000...0x323AF:
            true
        default: false
        }
    }

    /// The Joining_Type (`L`, `D`, `R`, `T`, or `U` for non-joining) of ArabicShaping.txt.
    private static func joiningType(_ scalar: Unicode.Scalar) -> Character {
        switch scalar.value {
        case 0x0622...0x0625, 0x0627, 0x0629, 0x062F...0x0632, 0x0648, 0x0671...0x0673, 0x0675...0x0677,
            0x0688...0x0699, 0x06C0, 0x06C3...0x06CB, 0x06CD, 0x06CF, 0x06D2, 0x06D3, 0x06D5, 0x06EE, 0x06EF,
            0x0759...0x075B, 0x076B, 0x076C, 0x0771, 0x0773, 0x0774, 0x0778, 0x0779, 0x0710, 0x0715...0x0719, 0x071E,
            0x0728, 0x072A, 0x072C, 0x072F, 0x074D:
            return "R"
        case 0x0620, 0x0626, 0x0628, 0x062A...0x062E, 0x0633...0x063F, 0x0641...0x0647, 0x0649, 0x064A, 0x066E,
            0x066F, 0x0678...0x0687, 0x069A...0x06BF, 0x06C1, 0x06C2, 0x06CC, 0x06CE, 0x06D0, 0x06D1, 0x06FA...0x06FC,
            0x06FF, 0x0750...0x0758, 0x075C...0x076A, 0x076D...0x0770, 0x0772, 0x0775...0x0777, 0x077A...0x077F,
            0x0712...0x0714, 0x071A...0x071D, 0x071F...0x0727, 0x0729, 0x072B, 0x072D, 0x072E, 0x074E, 0x074F,
            0x07CA...0x07EA, 0x1807, 0x1820...0x1878, 0x1887...0x18A8, 0x18AA, 0xA840...0xA871:
            return "D"
        case 0xA872:
            return "L"
        default:
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .format: return "T"
            default: return "U"
            }
        }
    }
}
