/// Why a JSON value is not an event envelope, with the field at fault.
public struct EnvelopeDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem, stable across releases (the reason codes of rejects and dead letters).
    public enum Code: String, Sendable, Hashable {
        case malformedJSON = "malformed_json"
        case notAnObject = "not_an_object"
        case missingField = "missing_field"
        case wrongType = "type_mismatch"
        case invalidTimestamp = "invalid_timestamp"
        case invalidEventID = "invalid_event_id"
        case duplicateField = "duplicate_field"
    }

    /// The kind of problem.
    public var code: Code
    /// The field, as a JSON path (`$.properties.position`).
    public var path: String
    /// A human explanation.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, path: String, message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String { "\(code.rawValue) at \(path): \(message)" }
}
