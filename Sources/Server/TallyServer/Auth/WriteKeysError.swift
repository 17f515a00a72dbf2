/// Why a key named to `tally keys revoke` or `rotate` could not be changed: a stable ``Code`` and
/// a message that says what to do.
package struct WriteKeysError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, stable across releases.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String {
            case unknownKey = "unknown_key"
            case ambiguousID = "ambiguous_id"
            case revokedKey = "revoked_key"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// No key of the file is the one named (by id, id prefix or the key itself).
        package static let unknownKey = Code(.unknownKey)
        /// An id prefix that more than one key's id starts with.
        package static let ambiguousID = Code(.ambiguousID)
        /// A revoked key cannot be rotated.
        package static let revokedKey = Code(.revokedKey)

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
