/// Why a JSON value is not an event envelope, with the field at fault.
///
/// Neither ``message`` nor the description quotes the input: they name the field (by its JSON
/// path), what was expected and, at most, the JSON type that came instead (`got a number`), never
/// a property value, an id or a timestamp as sent. The line itself goes to the rejects file, where
/// the person fixing it needs it.
public struct EnvelopeDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem, stable across releases (rejects files and dead letters record it as
    /// their reason code, `missing_field`). A struct, so that a kind added later breaks no `switch`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String {
            case malformedJSON = "malformed_json"
            case notAnObject = "not_an_object"
            case missingField = "missing_field"
            case wrongType = "type_mismatch"
            case invalidTimestamp = "invalid_timestamp"
            case invalidEventID = "invalid_event_id"
            case duplicateField = "duplicate_field"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The line is not JSON (or is empty, or too long to read).
        public static let malformedJSON = Code(.malformedJSON)
        /// The line is JSON, but not an object.
        public static let notAnObject = Code(.notAnObject)
        /// A required field (`name`, `occurred_at`, …) is absent.
        public static let missingField = Code(.missingField)
        /// A field has the wrong JSON type (`type_mismatch`).
        public static let wrongType = Code(.wrongType)
        /// A timestamp is not RFC 3339.
        public static let invalidTimestamp = Code(.invalidTimestamp)
        /// `event_id` is empty.
        public static let invalidEventID = Code(.invalidEventID)
        /// A key is given twice in the same object.
        public static let duplicateField = Code(.duplicateField)

        /// The stable snake_case reason code (`type_mismatch`).
        public var description: String { base.rawValue }
    }

    /// The kind of problem.
    public internal(set) var code: Code
    /// The field, as a JSON path (`$.properties.position`).
    public internal(set) var path: String
    /// A human explanation: what was expected, never the value that came.
    public internal(set) var message: String

    /// Creates an error.
    package init(_ code: Code, path: String, message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String { "\(code) at \(path): \(message)" }
}
