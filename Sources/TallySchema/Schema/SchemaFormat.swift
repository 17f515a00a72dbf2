import TallyCore

/// The `format` values tally checks. Any other format is refused when a schema loads.
public enum SchemaFormat: String, Sendable, Hashable, CaseIterable {
    /// RFC 3339 date-time (`2026-11-22T10:15:00Z`).
    case dateTime = "date-time"
    /// RFC 3339 full-date (`2026-11-22`).
    case date
    /// RFC 4122 UUID in canonical text form.
    case uuid
    /// RFC 3986 absolute URI (a scheme, then no spaces or control characters).
    case uri
    /// An e-mail address: `local@domain`, one `@`, a dotted domain, no spaces.
    case email

    /// Whether `string` has this format.
    public func matches(_ string: String) -> Bool {
        switch self {
        case .dateTime: return Timestamp(rfc3339: string) != nil
        case .date: return Self.isDate(string)
        case .uuid: return EventID(string) != nil
        case .uri: return Self.isURI(string)
        case .email: return Self.isEmail(string)
        }
    }

    private static func isDate(_ string: String) -> Bool {
        let parts = string.split(separator: "-", omittingEmptySubsequences: false)
        guard string.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }),
            let year = Int64(parts[0]), let month = Int64(parts[1]), let day = Int64(parts[2])
        else { return false }
        return CivilDate(year: year, month: month, day: day).isValid
    }

    private static func isURI(_ string: String) -> Bool {
        let bytes = Array(string.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return false }
        let scheme = bytes[..<colon]
        guard let first = scheme.first, (0x41...0x5A).contains(first) || (0x61...0x7A).contains(first) else {
            return false
        }
        for byte in scheme {
            let isAlpha = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            let isDigit = (0x30...0x39).contains(byte)
            guard
                isAlpha || isDigit || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: ".")
            else { return false }
        }
        let invalid: Set<UInt8> = [0x20, 0x22, 0x3C, 0x3E, 0x5C, 0x5E, 0x60, 0x7B, 0x7C, 0x7D]
        return bytes[(colon + 1)...].allSatisfy { $0 > 0x20 && $0 != 0x7F && !invalid.contains($0) }
    }

    private static func isEmail(_ string: String) -> Bool {
        let parts = string.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 64, !parts[1].isEmpty else { return false }
        let local = parts[0]
        let domain = parts[1]
        guard !local.hasPrefix("."), !local.hasSuffix("."), !local.contains(".."),
            local.unicodeScalars.allSatisfy({ $0.value > 0x20 && !"()<>[]:;@\\,\"".unicodeScalars.contains($0) })
        else { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2
            && labels.allSatisfy { label in
                !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                    && label.unicodeScalars.allSatisfy {
                        $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-"
                    }
            }
    }
}
