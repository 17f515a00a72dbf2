package import TallySchema

/// One rejected line, as the console report names it: `file:line: reason at path: message`.
package struct RejectedLine: Sendable, Hashable, CustomStringConvertible {
    /// The input (`<stdin>` for standard input).
    package var source: String
    /// The line number, from 1.
    package var line: Int
    /// Why it was rejected.
    package var reason: ReasonCode
    /// The JSON path at fault (`$` for the whole line).
    package var path: String
    /// What was wrong, for people.
    package var message: String

    /// A rejected line.
    package init(source: String, line: Int, reason: ReasonCode, path: String, message: String) {
        self.source = source
        self.line = line
        self.reason = reason
        self.path = path
        self.message = message
    }

    /// `events.ndjson:12: type_mismatch at $.properties.position: expected integer`.
    package var description: String {
        "\(source):\(line): \(reason.rawValue)" + (path == "$" ? "" : " at \(path)") + ": \(message)"
    }
}
