/// A schema or tracking plan that cannot be loaded, with the file and the JSON path at fault.
///
/// The description is what `tally schema lint` prints:
/// `plans/search.json: $.events[0].name: … [invalid_name]`. It quotes the plan (a keyword, a
/// name, a pattern), which is configuration, never event data.
public struct SchemaError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem, stable across releases: its description is the snake_case code lint
    /// output ends with (`[unsupported_keyword]`). A struct, so that a kind added later breaks no
    /// `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String {
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
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The file cannot be read, is not JSON, or is not a tracking plan at all.
        public static let malformedFile = Code(.malformedFile)
        /// A JSON Schema keyword the registry does not implement: refused, never skipped.
        public static let unsupportedKeyword = Code(.unsupportedKeyword)
        /// A keyword with a value of the wrong kind (`"minimum": "3"`), or a broken `$ref`.
        public static let invalidKeyword = Code(.invalidKeyword)
        /// A `pattern` that is not a valid ECMA-262 regular expression (``PatternError``).
        public static let invalidPattern = Code(.invalidPattern)
        /// A `format` the registry does not check.
        public static let unsupportedFormat = Code(.unsupportedFormat)
        /// A feature or event name that breaks the plan's naming rule.
        public static let invalidName = Code(.invalidName)
        /// An event name that collides with another (the same once case and separators are set
        /// aside), or that another feature already declares.
        public static let nameCollision = Code(.nameCollision)
        /// The same event and version, or the same feature, declared twice.
        public static let duplicateEvent = Code(.duplicateEvent)
        /// A version that is not SchemaVer (`1-0-0`).
        public static let invalidVersion = Code(.invalidVersion)
        /// An event whose screen the plan does not declare.
        public static let unknownScreen = Code(.unknownScreen)
        /// A required member of the plan is absent.
        public static let missingField = Code(.missingField)

        /// The stable snake_case code (`invalid_keyword`).
        public var description: String { base.rawValue }
    }

    /// The kind of problem.
    public internal(set) var code: Code
    /// The file, when loading from disk.
    public internal(set) var file: String?
    /// The JSON path inside the file (`$.events[2].properties.properties.position.minimum`).
    public internal(set) var path: String
    /// A human explanation.
    public internal(set) var message: String

    /// Creates an error.
    package init(_ code: Code, file: String? = nil, path: String, message: String) {
        self.code = code
        self.file = file
        self.path = path
        self.message = message
    }

    public var description: String {
        "\(file.map { "\($0): " } ?? "")\(path): \(message) [\(code)]"
    }
}
