import TallyCore

/// The `format` values tally checks. Any other format is refused when a schema loads.
package enum SchemaFormat: String, Sendable, Hashable, CaseIterable {
    /// RFC 3339 date-time (`2026-11-22T10:15:00Z`, `2026-11-22t11:15:00.5+01:00`).
    case dateTime = "date-time"
    /// RFC 3339 full-date (`2026-11-22`).
    case date
    /// RFC 3339 full-time, with its offset (`10:15:00Z`, `10:15:00.25-08:00`).
    case time
    /// RFC 4122 UUID in canonical text form.
    case uuid
    /// RFC 3986 absolute URI (`https://example.com/a?b#c`, `urn:isbn:0451450523`).
    case uri
    /// An e-mail address: `local@domain`, one `@`, a dotted domain, no spaces.
    case email
    /// RFC 2673 dotted-quad IPv4 address, without leading zeros (`192.168.0.1`).
    case ipv4
    /// RFC 4291 IPv6 address, `::` and an embedded IPv4 address included (`::ffff:192.168.0.1`).
    case ipv6
    /// RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens, at most 63
    /// bytes each and 253 in all; `xn--` labels must be valid IDNA 2008 A-labels.
    case hostname

    /// Whether `string` has this format.
    package func matches(_ string: String) -> Bool {
        switch self {
        case .dateTime: return Self.isDateTime(string)
        case .date: return Self.isDate(string)
        case .time: return Self.isTime(string)
        case .uuid: return EventID(string) != nil
        case .uri: return Self.isURI(string)
        case .email: return Self.isEmail(string)
        case .ipv4: return Self.withBytes(string, Self.isIPv4)
        case .ipv6: return Self.withBytes(string, Self.isIPv6)
        case .hostname: return Self.isHostname(string)
        }
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

    /// UTF-8 bytes being checked.
    typealias Bytes = Slice<UnsafeBufferPointer<UInt8>>

    /// `body` over the UTF-8 of `string` (no copy for native strings).
    static func withBytes(_ string: String, _ body: (Bytes) -> Bool) -> Bool {
        var string = string
        return string.withUTF8 { body($0[...]) }
    }

    /// Whether `byte` is an ASCII digit.
    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Whether `byte` is an ASCII letter.
    static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    /// Whether `byte` is an ASCII hexadecimal digit.
    static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "f"))
    }
}
