import Foundation

extension PostgresConnection {
    /// Options a connection gets unless the URL, conninfo or environment sets them: a bound on
    /// connecting, and keepalives that notice a dead peer within about a minute and a half.
    package static let defaultOptions: [(keyword: String, value: String, environment: String?)] = [
        ("connect_timeout", "10", "PGCONNECT_TIMEOUT"),
        ("keepalives", "1", nil),
        ("keepalives_idle", "60", nil),
        ("keepalives_interval", "10", nil),
        ("keepalives_count", "3", nil),
    ]

    /// The keywords and values for `PQconnectdbParams`: the defaults not set in the environment
    /// (libpq reads it only for options nobody set), then `conninfo` as `dbname`, expanded by libpq
    /// so that its own settings override the defaults.
    package static func options(_ conninfo: String?, environment: [String: String]) -> [(
        keyword: String, value: String
    )] {
        // A service file's settings count as the user's too, and libpq applies them only to
        // options still unset: leave everything to it then.
        let usesService =
            environment["PGSERVICE"] != nil || conninfo.map { $0.contains("service=") } == true
        var options: [(keyword: String, value: String)] =
            usesService
            ? []
            : defaultOptions.filter { $0.environment.flatMap { environment[$0] } == nil }.map {
                ($0.keyword, $0.value)
            }
        if let conninfo, !conninfo.isEmpty { options.append(("dbname", conninfo)) }
        return options
    }

    /// Calls `body` with `strings` as a NULL-terminated array of C strings.
    static func withCStrings<Result>(
        _ strings: [String],
        _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> Result
    ) -> Result {
        let copies = strings.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        let pointers = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// The password in a URL or conninfo, to scrub from messages.
    static func password(in conninfo: String?) -> String? {
        guard let conninfo else { return ProcessInfo.processInfo.environment["PGPASSWORD"] }
        if let url = URLComponents(string: conninfo), url.scheme?.hasPrefix("postgres") == true {
            return url.password ?? url.percentEncodedPassword
        }
        if let range = conninfo.range(of: #"password\s*=\s*('[^']*'|\S+)"#, options: .regularExpression) {
            let field = conninfo[range]
            return field.split(separator: "=", maxSplits: 1).last.map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: "' "))
            }
        }
        return nil
    }
}
