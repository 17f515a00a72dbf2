/// RFC 3986 `URI` (absolute: a scheme is required; a fragment is allowed), ASCII only.
extension SchemaFormat {
    static func isURI(_ string: String) -> Bool {
        withBytes(string) { bytes in
            // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > bytes.startIndex,
                isLetter(bytes[bytes.startIndex]),
                bytes[..<colon].allSatisfy({ isLetter($0) || isDigit($0) || "+-.".utf8.contains($0) })
            else { return false }
            var rest = bytes[(colon + 1)...]
            if let hash = rest.firstIndex(of: UInt8(ascii: "#")) {
                guard isQueryOrFragment(rest[(hash + 1)...]) else { return false }
                rest = rest[..<hash]
            }
            if let question = rest.firstIndex(of: UInt8(ascii: "?")) {
                guard isQueryOrFragment(rest[(question + 1)...]) else { return false }
                rest = rest[..<question]
            }
            // hier-part = "//" authority path-abempty / path-absolute / path-rootless / path-empty
            if rest.count >= 2, rest[rest.startIndex] == slash, rest[rest.startIndex + 1] == slash {
                let authorityStart = rest.startIndex + 2
                let pathStart = rest[authorityStart...].firstIndex(of: slash) ?? rest.endIndex
                return isAuthority(rest[authorityStart..<pathStart]) && isPath(rest[pathStart...])
            }
            return isPath(rest)
        }
    }

    /// `authority = [ userinfo "@" ] host [ ":" port ]`.
    private static func isAuthority(_ bytes: Bytes) -> Bool {
        var host = bytes
        if let at = bytes.firstIndex(of: UInt8(ascii: "@")) {
            // userinfo = *( unreserved / pct-encoded / sub-delims / ":" ); the host has no "@" either.
            guard isEncoded(bytes[..<at], allowing: ":") else { return false }
            host = bytes[(at + 1)...]
        }
        var port = host[host.endIndex...]
        if host.first == UInt8(ascii: "[") {
            // IP-literal = "[" ( IPv6address / IPvFuture ) "]"
            guard let close = host.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let literal = host[(host.startIndex + 1)..<close]
            guard isIPv6(literal) || isIPvFuture(literal) else { return false }
            port = host[(close + 1)...]
            guard port.isEmpty || port.first == UInt8(ascii: ":") else { return false }
        } else {
            // reg-name = *( unreserved / pct-encoded / sub-delims ), IPv4 addresses included.
            if let colon = host.firstIndex(of: UInt8(ascii: ":")) {
                port = host[colon...]
                host = host[..<colon]
            }
            guard isEncoded(host, allowing: "") else { return false }
        }
        return port.dropFirst().allSatisfy(isDigit)
    }

    /// `IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )`.
    private static func isIPvFuture(_ bytes: Bytes) -> Bool {
        guard let first = bytes.first, first | 0x20 == UInt8(ascii: "v"),
            let dot = bytes.firstIndex(of: UInt8(ascii: "."))
        else {
            return false
        }
        let version = bytes[(bytes.startIndex + 1)..<dot]
        let rest = bytes[(dot + 1)...]
        return !version.isEmpty && version.allSatisfy(isHexDigit) && !rest.isEmpty
            && rest.allSatisfy { isUnreserved($0) || isSubDelimiter($0) || $0 == UInt8(ascii: ":") }
    }

    /// Segments of `pchar` separated by `/`; the path grammars differ only in where `/` may be,
    /// and after the authority or scheme split, every arrangement left is allowed.
    private static func isPath(_ bytes: Bytes) -> Bool {
        isEncoded(bytes, allowing: ":@/")
    }

    private static func isQueryOrFragment(_ bytes: Bytes) -> Bool {
        isEncoded(bytes, allowing: ":@/?")
    }

    /// Whether `bytes` are unreserved, sub-delimiters, `extra`, or `%` with two hex digits.
    private static func isEncoded(_ bytes: Bytes, allowing extra: StaticString) -> Bool {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 3 <= bytes.endIndex, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2])
                else { return false }
                index += 3
                continue
            }
            guard isUnreserved(byte) || isSubDelimiter(byte) || contains(extra, byte) else { return false }
            index += 1
        }
        return true
    }

    private static func contains(_ set: StaticString, _ byte: UInt8) -> Bool {
        set.withUTF8Buffer { $0.contains(byte) }
    }

    /// `unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    /// `sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="`.
    private static func isSubDelimiter(_ byte: UInt8) -> Bool {
        contains("!$&'()*+,;=", byte)
    }

    private static var slash: UInt8 { UInt8(ascii: "/") }
}
