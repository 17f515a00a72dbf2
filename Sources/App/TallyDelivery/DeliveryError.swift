/// Why the outbox or the uploader could not do something, with a stable ``Code``.
///
/// The description names the problem and the path, never an event's contents.
public struct DeliveryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem, stable across releases: match with `==`, print it for its snake_case
    /// name. A struct, so that a kind added later breaks no `switch`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String {
            case outboxUnavailable = "outbox_unavailable"
            case outboxWriteFailed = "outbox_write_failed"
            case invalidConfiguration = "invalid_configuration"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The outbox directory or its lock files cannot be created or opened.
        public static let outboxUnavailable = Code(.outboxUnavailable)
        /// A file of the outbox could not be written, renamed or removed.
        public static let outboxWriteFailed = Code(.outboxWriteFailed)
        /// A setting is out of range (an endpoint without a scheme, a negative cap).
        public static let invalidConfiguration = Code(.invalidConfiguration)

        /// The stable snake_case name.
        public var description: String { base.rawValue }
    }

    /// The kind of problem.
    public internal(set) var code: Code
    /// What failed, with the path and the system's reason where there is one.
    public internal(set) var message: String
    /// The `errno` of the failed system call, 0 when none.
    public internal(set) var errno: Int32

    package init(_ code: Code, _ message: String, errno: Int32 = 0) {
        self.code = code
        self.message = message
        self.errno = errno
    }

    public var description: String { "\(code): \(message)" }
}
