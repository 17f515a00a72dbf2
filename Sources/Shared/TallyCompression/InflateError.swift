/// Why a compressed body could not be inflated. The description names the problem, never the bytes.
public struct InflateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem, stable across releases (`truncated`). A struct, so that a kind added
    /// later breaks no `switch`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String {
            case corrupt
            case truncated
            case tooLarge = "too_large"
            case ratioExceeded = "ratio_exceeded"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// Not gzip / deflate data, or a bad checksum.
        public static let corrupt = Code(.corrupt)
        /// The stream ended before its end marker (and checksum).
        public static let truncated = Code(.truncated)
        /// The output grew past ``Inflater/Limits/maxOutputBytes``.
        public static let tooLarge = Code(.tooLarge)
        /// The output grew past ``Inflater/Limits/maxRatio`` times the input.
        public static let ratioExceeded = Code(.ratioExceeded)

        /// The stable snake_case name (`too_large`).
        public var description: String { base.rawValue }
    }

    /// The kind of problem.
    public internal(set) var code: Code
    /// What happened, for a reply or a log: sizes and zlib's message, no data.
    public internal(set) var message: String

    /// Creates an error.
    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
