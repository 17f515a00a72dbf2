/// Internet addresses and names: `ipv4`, `ipv6`, `hostname`.
extension SchemaFormat {
    /// RFC 2673 §3.2 dotted-quad: four decimal octets, no leading zeros (`010` could be read as octal).
    static func isIPv4(_ bytes: Bytes) -> Bool {
        var octets = 0
        var digits = 0
        var value = 0
        var leadingZero = false
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, octets < 3 else { return false }
                octets += 1
                (digits, value, leadingZero) = (0, 0, false)
                continue
            }
            guard isDigit(byte), !leadingZero else { return false }
            leadingZero = digits == 0 && byte == UInt8(ascii: "0")
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
            guard value <= 255 else { return false }
        }
        return octets == 3 && digits > 0
    }

    /// RFC 4291 §2.2: eight groups of 1–4 hex digits; one `::` stands for one or more zero groups;
    /// the last 32 bits may be written as a dotted quad. No zone (`%eth0`), no prefix (`/64`).
    static func isIPv6(_ bytes: Bytes) -> Bool {
        var groups = 0
        var sawDoubleColon = false
        var index = bytes.startIndex
        if bytes.count >= 2, bytes[index] == colon, bytes[index + 1] == colon {
            sawDoubleColon = true
            index += 2
        }
        while index < bytes.endIndex {
            // A group, or the dotted quad that ends the address.
            var end = index
            while end < bytes.endIndex, isHexDigit(bytes[end]) { end += 1 }
            if end < bytes.endIndex, bytes[end] == UInt8(ascii: ".") {
                guard isIPv4(bytes[index...]) else { return false }
                groups += 2
                index = bytes.endIndex
                break
            }
            guard end > index, end - index <= 4 else { return false }
            groups += 1
            index = end
            guard index < bytes.endIndex else { break }
            guard bytes[index] == colon, index + 1 < bytes.endIndex else { return false }
            index += 1
            if bytes[index] == colon {
                guard !sawDoubleColon else { return false }
                sawDoubleColon = true
                index += 1
            }
        }
        return sawDoubleColon ? groups <= 7 : groups == 8
    }

    /// RFC 1123 §2.1 host name; `xn--` labels are checked as IDNA 2008 A-labels (RFC 5891).
    static func isHostname(_ string: String) -> Bool {
        withBytes(string) { bytes in
            guard !bytes.isEmpty, bytes.count <= 253 else { return false }
            var start = bytes.startIndex
            while true {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: ".")) ?? bytes.endIndex
                guard isLabel(bytes[start..<end]) else { return false }
                if end == bytes.endIndex { return true }
                start = end + 1
            }
        }
    }

    private static func isLabel(_ label: Bytes) -> Bool {
        guard let first = label.first, let last = label.last, label.count <= 63, first != UInt8(ascii: "-"),
            last != UInt8(ascii: "-"), label.allSatisfy({ isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "-") })
        else { return false }
        if label.count >= 4, label[label.startIndex + 2] == UInt8(ascii: "-"),
            label[label.startIndex + 3] == UInt8(ascii: "-"), first | 0x20 == UInt8(ascii: "x"),
            label[label.startIndex + 1] | 0x20 == UInt8(ascii: "n")
        {
            return IDNALabel.isValidALabel(label[(label.startIndex + 4)...])
        }
        return true
    }

    private static var colon: UInt8 { UInt8(ascii: ":") }
}
