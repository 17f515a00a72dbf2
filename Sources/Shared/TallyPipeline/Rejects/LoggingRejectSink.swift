public import Logging
import TallyCore

/// The dead-letter sink used when none is configured: each reject is logged at `error` with its
/// whole JSON line (the event included), so that nothing disappears without a trace.
public struct LoggingRejectSink: RejectSink {
    private let logger: Logger

    /// Logs to `logger`.
    public init(logger: Logger) {
        self.logger = logger
    }

    public func store(_ rejects: [Reject]) async throws {
        for reject in rejects {
            var line = reject.jsonLine
            line.removeLast()
            logger.error(
                "rejected event",
                metadata: [
                    "tally.reason": "\(reject.reason.code)",
                    "tally.reject": "\(String(decoding: line, as: UTF8.self))",
                ]
            )
        }
    }
}
