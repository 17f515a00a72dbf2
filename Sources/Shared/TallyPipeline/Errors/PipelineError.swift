/// An error from the pipeline itself, with a stable ``Code`` to match on.
///
/// The description names the event (for ``Code/invalidEvent``) and the rule it broke, never its
/// property values.
public struct PipelineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, stable across releases.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String { case closed, alreadyRunning, invalidEvent, timedOut }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The pipeline is shutting down or shut down, and takes no more events.
        public static let closed = Code(.closed)
        /// Under the `strict` validation policy, the event broke the tracking plan.
        public static let invalidEvent = Code(.invalidEvent)
        /// `run()` was called twice.
        public static let alreadyRunning = Code(.alreadyRunning)
        /// A sink write or flush took longer than ``PipelineConfiguration/sinkTimeout`` and was
        /// cancelled.
        public static let timedOut = Code(.timedOut)

        /// The stable name (`timedOut`), as dead letters record it.
        public var description: String { base.rawValue }
    }

    /// The kind of error.
    public internal(set) var code: Code
    /// A human explanation: no property values.
    public internal(set) var message: String

    /// Creates an error.
    package init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "PipelineError(\(code)): \(message)" }
}

extension PipelineError: ClassifiedError {
    /// A timeout is transient (the next attempt may be faster); the rest are permanent.
    public var errorClass: SinkErrorClass { code == .timedOut ? .transient : .permanent }

    /// The code's name (`timedOut`).
    public var reasonCode: String { code.description }
}
