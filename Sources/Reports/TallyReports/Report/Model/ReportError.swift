/// A report that cannot run as defined: a usage error on the command line (exit 64), a
/// definition error in a saved report (with its JSON path).
package struct ReportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, stable across releases.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A value or option out of its allowed set or range.
        package static let invalidValue = Code("invalid_value")
        /// A member, option or step that must be there is not.
        package static let missing = Code("missing")
        /// A filter or selector that does not parse.
        package static let syntax = Code("syntax")
        /// A time zone that is not an IANA name this system knows.
        package static let unknownTimeZone = Code("unknown_time_zone")
        /// A range that holds no instant.
        package static let emptyRange = Code("empty_range")
        /// A numeric comparison on a property its plan declares other than numeric.
        package static let typeMismatch = Code("type_mismatch")

        package var description: String { name }
    }

    package var code: Code
    /// The JSON path of a saved report's member (`$.steps[1].filters[0].op`), or the option.
    package var path: String
    package var message: String

    package init(_ code: Code, path: String, _ message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    package var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
