/// A schema or tracking plan that cannot be loaded, with the file and the JSON path at fault.
public struct SchemaError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem, stable across releases.
    public enum Code: String, Hashable, Sendable {
        case malformedFile = "malformed_file"
        case unsupportedKeyword = "unsupported_keyword"
        case invalidKeyword = "invalid_keyword"
        case invalidPattern = "invalid_pattern"
        case unsupportedFormat = "unsupported_format"
        case invalidName = "invalid_name"
        case nameCollision = "name_collision"
        case duplicateEvent = "duplicate_event"
        case invalidVersion = "invalid_version"
        case unknownScreen = "unknown_screen"
        case missingField = "missing_field"
    }

    /// The kind of problem.
    public var code: Code
    /// The file, when loading from disk.
    public var file: String?
    /// The JSON path inside the file (`$.events[2].properties.properties.position.minimum`).
    public var path: String
    /// A human explanation.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, file: String? = nil, path: String, message: String) {
        self.code = code
        self.file = file
        self.path = path
        self.message = message
    }

    public var description: String {
        "\(file.map { "\($0): " } ?? "")\(path): \(message) [\(code.rawValue)]"
    }
}
