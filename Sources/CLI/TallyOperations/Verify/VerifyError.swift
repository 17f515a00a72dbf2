/// Why `verify` could not run: a stable ``Code`` and a message that says what to do.
package struct VerifyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, stable across releases.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String {
            case missingSources = "missing_sources"
            case unreadableSource = "unreadable_source"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A `--sources` directory does not exist.
        package static let missingSources = Code(.missingSources)
        /// A Swift file could not be read.
        package static let unreadableSource = Code(.unreadableSource)

        /// The stable snake_case name.
        package var description: String { base.rawValue }
    }

    /// What went wrong.
    package var code: Code
    /// What to tell the user.
    package var message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }
}
