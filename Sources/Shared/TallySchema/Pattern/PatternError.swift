/// A JSON Schema `pattern` that cannot be compiled.
///
/// The description quotes the pattern, which comes from a tracking plan (configuration), never
/// from an event.
public struct PatternError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Why the pattern was refused, stable across releases. A struct, so that a kind added later
    /// breaks no `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String { case invalid, unsupported }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// Not a valid ECMA-262 pattern (`[a`, `a{3,1}`).
        public static let invalid = Code(.invalid)
        /// Valid ECMA-262, but neither tally's matcher nor the fallback engine runs it.
        public static let unsupported = Code(.unsupported)

        /// The stable name (`invalid`).
        public var description: String { base.rawValue }
    }

    /// Why it was refused.
    public internal(set) var code: Code
    /// The pattern, as written in the schema.
    public internal(set) var source: String
    /// What is wrong with it (`missing ']'`).
    public internal(set) var reason: String

    init(_ code: Code, source: String, reason: String) {
        self.code = code
        self.source = source
        self.reason = reason
    }

    public var description: String { "invalid pattern \(source.debugDescription): \(reason)" }
}
