import TallyPipeline

/// An error from ClickHouse or from reaching it, with the server's error code when it gave one.
///
/// Its description (`ClickHouseError(server, code 60): Table tally.events doesn't exist`) is safe to
/// log: it never holds the URL's password. ClickHouse's own text may quote a value it could not
/// parse, so ``message`` keeps only the first line of the server's exception, and dead letters alone
/// keep the whole of it (``serverMessage``).
package struct ClickHouseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, stable across releases. A struct, so that a kind added later breaks no
    /// `switch`.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String { case connection, server, configuration, migration, response }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The server could not be reached, the connection broke or a request timed out.
        package static let connection = Code(.connection)
        /// The server refused a statement (``ClickHouseError/serverCode`` says why).
        package static let server = Code(.server)
        /// A URL or option is invalid.
        package static let configuration = Code(.configuration)
        /// A migration was edited after it was applied, or a node holds a schema newer than this binary.
        package static let migration = Code(.migration)
        /// The server's answer could not be read (a version whose formats differ).
        package static let response = Code(.response)

        /// The stable name (`connection`).
        package var description: String { base.rawValue }
    }

    /// The kind of error.
    package var code: Code
    /// ClickHouse's error code (`60` UNKNOWN_TABLE), when the server sent one.
    package var serverCode: Int?
    /// A message safe to show and log.
    package var message: String
    /// The server's whole exception text (it may quote refused values): for dead letters only.
    package var serverMessage: String?

    package init(_ code: Code, serverCode: Int? = nil, message: String, serverMessage: String? = nil) {
        self.code = code
        self.serverCode = serverCode
        self.message = message
        self.serverMessage = serverMessage
    }

    /// An error from an HTTP answer that was not 200: the body holds `Code: N, e.displayText() = …`.
    package init(status: Int, body: String) {
        let code = Self.parseCode(body)
        let text = body.trimmingBlanks()
        var first = Self.displayText(text)
        if first.count > 300 { first = String(first.prefix(300)) + "…" }
        self.init(
            .server,
            serverCode: code,
            message: "HTTP \(status)" + (first.isEmpty ? "" : ": " + first),
            serverMessage: text.isEmpty ? nil : text
        )
    }

    /// Whether retrying cannot help the same request: see ``errorClass``.
    package var isPermanent: Bool { errorClass == .permanent }

    package var description: String {
        "ClickHouseError(\(code)\(serverCode.map { ", code \($0)" } ?? "")): \(message)"
    }

    /// `N` of `Code: N, …`.
    static func parseCode(_ body: String) -> Int? {
        guard let range = body.firstRange(of: "Code: ") else { return nil }
        let digits = body[range.upperBound...].prefix { $0.isNumber }
        return Int(digits)
    }

    /// The exception's message without the `Code: N, e.displayText() = DB::Exception:` prefix and
    /// without what follows its first line.
    static func displayText(_ body: String) -> String {
        var text = Substring(body)
        if let range = text.firstRange(of: "DB::Exception: ") { text = text[range.upperBound...] }
        if let newline = text.firstIndex(where: { $0 == "\n" || $0 == "\r" }) { text = text[..<newline] }
        if let end = text.firstRange(of: ", e.what() = ") { text = text[..<end.lowerBound] }
        return String(text)
    }
}
