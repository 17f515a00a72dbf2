/// An error from PostgreSQL or libpq, with the SQLSTATE when the server gave one.
///
/// The description never contains the connection password: messages are scrubbed of it, and
/// of any `password=` / `postgresql://user:password@` fragments, before they are stored.
public struct PostgresError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, stable across releases.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let base: String
        private init(_ base: String) { self.base = base }

        /// The server could not be reached or the connection broke: retrying may help.
        public static let connection = Code("connection")
        /// The server refused a statement (the SQLSTATE says why).
        public static let server = Code("server")
        /// COPY failed.
        public static let copy = Code("copy")
        /// A migration file is missing, malformed, or was edited after it was applied.
        public static let migration = Code("migration")
        /// A connection URL or option is invalid.
        public static let configuration = Code("configuration")

        public var description: String { base }
    }

    /// The kind of error.
    public var code: Code
    /// The five-character SQLSTATE (`23505`), when the server sent one.
    public var sqlState: String?
    /// A message safe to show: no password.
    public var message: String

    /// Creates an error, scrubbing `secret` (and URL/conninfo password fields) from the message.
    public init(_ code: Code, sqlState: String? = nil, message: String, secret: String? = nil) {
        self.code = code
        self.sqlState = sqlState
        self.message = Self.scrub(message, secret: secret)
    }

    /// Whether the error is about the connection (and a reconnect and retry may succeed).
    public var isConnectionProblem: Bool {
        code == .connection
            || (sqlState.map { $0.hasPrefix("08") || $0 == "57P01" || $0 == "57P02" || $0 == "57P03" } ?? false)
    }

    /// Whether the data itself was refused (class 22: data exception, 23: integrity violation).
    public var isDataProblem: Bool {
        sqlState.map { $0.hasPrefix("22") || $0.hasPrefix("23") } ?? false
    }

    public var description: String {
        "PostgresError(\(code)\(sqlState.map { ", SQLSTATE \($0)" } ?? "")): \(message)"
    }

    static func scrub(_ text: String, secret: String?) -> String {
        var text = text
        if let secret, !secret.isEmpty { text = text.replacingOccurrences(of: secret, with: "********") }
        // postgresql://user:secret@host → postgresql://user:********@host
        if let regex = try? Regex(#"(postgres(?:ql)?://[^:/@\s]*):[^@\s]*@"#) {
            text = text.replacing(regex) { match in
                let whole = String(text[match.range])
                let userPart = whole.prefix(upTo: whole.lastIndex(of: ":") ?? whole.endIndex)
                return userPart + ":********@"
            }
        }
        if let regex = try? Regex(#"password\s*=\s*('[^']*'|\S+)"#) {
            text = text.replacing(regex, with: "password=********")
        }
        return text
    }
}
