/// One ClickHouse node's HTTP interface, from a URL such as `http://tally_writer:secret@ch1:8123`.
///
/// The credentials travel in the `X-ClickHouse-User` / `X-ClickHouse-Key` headers, never in the
/// request's URL (which the server may log); ``description`` leaves the password out.
package struct ClickHouseEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// `http://host:port` (https too), without credentials or path.
    package var base: String
    package var user: String?
    package var password: String?

    /// Parses one URL: `http(s)://[user[:password]@]host[:port][/]`.
    package init(url: String) throws(ClickHouseError) {
        let text = url.trimmingBlanks()
        guard let schemeEnd = text.firstRange(of: "://") else {
            throw ClickHouseError(.configuration, message: "\(Self.redacted(text)): not an http:// or https:// URL")
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw ClickHouseError(.configuration, message: "\(Self.redacted(text)): only http:// and https:// work")
        }
        var rest = text[schemeEnd.upperBound...]
        if let slash = rest.firstIndex(of: "/") {
            guard rest[slash...].allSatisfy({ $0 == "/" }) else {
                throw ClickHouseError(
                    .configuration,
                    message: "\(Self.redacted(text)): give the server's address alone, without a path or query"
                )
            }
            rest = rest[..<slash]
        }
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            if let colon = credentials.firstIndex(of: ":") {
                user = Self.percentDecoded(credentials[..<colon])
                password = Self.percentDecoded(credentials[credentials.index(after: colon)...])
            } else {
                user = Self.percentDecoded(credentials)
            }
            rest = rest[rest.index(after: at)...]
        }
        guard !rest.isEmpty else { throw ClickHouseError(.configuration, message: "\(Self.redacted(text)): no host") }
        base = scheme + "://" + rest
    }

    /// Parses a comma-separated list of URLs (the nodes a writer or reader may use, in order).
    package static func list(_ urls: String) throws(ClickHouseError) -> [ClickHouseEndpoint] {
        var endpoints: [ClickHouseEndpoint] = []
        for part in urls.split(separator: ",") where !part.trimmingBlanks().isEmpty {
            endpoints.append(try ClickHouseEndpoint(url: String(part)))
        }
        guard !endpoints.isEmpty else { throw ClickHouseError(.configuration, message: "no ClickHouse URL given") }
        return endpoints
    }

    package var description: String { (user.map { $0 + "@" } ?? "") + base }

    /// `url` with any password replaced by `…`, for messages.
    static func redacted(_ url: some StringProtocol) -> String {
        guard let schemeEnd = url.firstRange(of: "://"), let at = url.lastIndex(of: "@"), at > schemeEnd.upperBound
        else { return String(url) }
        let credentials = url[schemeEnd.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return String(url) }
        return String(url[..<colon]) + ":…" + String(url[at...])
    }

    private static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs and line breaks.
    func trimmingBlanks() -> String {
        let blank: Set<Character> = [" ", "\t", "\n", "\r"]
        var slice = Substring(self)
        while let first = slice.first, blank.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, blank.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
