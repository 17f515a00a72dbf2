/// An error from PostgreSQL or libpq, with the SQLSTATE when the server gave one.
///
/// Its description (`PostgresError(server, SQLSTATE 42501): permission denied for table events`)
/// is safe to log and to show: it never contains the connection password, nor the values of the
/// rows the server refused. The password is scrubbed from every message (and so are
/// `password=` and `postgresql://user:password@` fragments); ``message`` is the server's primary
/// message alone, without the DETAIL and CONTEXT lines that quote row values, and with what a data
/// exception (SQLSTATE class 22) quotes replaced by `…`. The server's whole report, values
/// included, is kept apart in ``serverMessage``.
public struct PostgresError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, stable across releases. A struct, so that a kind added later breaks no
    /// `switch`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String { case connection, server, copy, migration, configuration }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The server could not be reached or the connection broke: retrying may help.
        public static let connection = Code(.connection)
        /// The server refused a statement (the SQLSTATE says why).
        public static let server = Code(.server)
        /// COPY failed.
        public static let copy = Code(.copy)
        /// A migration file is missing, malformed, or was edited after it was applied.
        public static let migration = Code(.migration)
        /// A connection URL or option is invalid.
        public static let configuration = Code(.configuration)

        /// The stable name (`connection`).
        public var description: String { base.rawValue }
    }

    /// The kind of error.
    public internal(set) var code: Code
    /// The five-character SQLSTATE (`23505`), when the server sent one.
    public internal(set) var sqlState: String?
    /// A message safe to show and log: no password, no row values.
    public internal(set) var message: String
    /// Everything libpq reported for a refused statement (severity, DETAIL, HINT, CONTEXT lines),
    /// password scrubbed; nil when there was nothing beyond ``message``.
    ///
    /// It may quote the values the server refused (`Key (event_id)=(…) already exists`, a COPY
    /// line's text), so it is in no description: write it only where the events themselves may go,
    /// as `tally.failed_events` does.
    public internal(set) var serverMessage: String?

    /// Creates an error, scrubbing `secret` (and URL/conninfo password fields) from both messages,
    /// and the quoted values from `message` when `sqlState` is a data exception (class 22).
    package init(
        _ code: Code,
        sqlState: String? = nil,
        message: String,
        serverMessage: String? = nil,
        secret: String? = nil
    ) {
        self.code = code
        self.sqlState = sqlState
        let message = Self.scrub(message, secret: secret)
        self.message = sqlState?.hasPrefix("22") == true ? Self.withoutQuotedValues(message) : message
        self.serverMessage = serverMessage.map { Self.scrub($0, secret: secret) }
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

    /// `PostgresError(server, SQLSTATE 42501): permission denied for table events`: safe to log.
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

    /// A data exception's message with what it quotes of the refused value taken out:
    /// `invalid input syntax for type integer: "s3cr3t"` → `… integer: "…"`, and
    /// `invalid byte sequence for encoding "UTF8": 0x00` → `… "…": 0x…`. The server puts values
    /// (and a few names) in double quotes without escaping the quotes inside them, so everything
    /// from the first quote to the last goes; the bytes of bad text are in hex.
    static func withoutQuotedValues(_ text: String) -> String {
        var text = text
        if let quoted = try? Regex(#""[\s\S]*""#) { text = text.replacing(quoted, with: "\"…\"") }
        if let bytes = try? Regex(#"0x[0-9A-Fa-f]+(?: 0x[0-9A-Fa-f]+)*"#) { text = text.replacing(bytes, with: "0x…") }
        return text
    }
}
