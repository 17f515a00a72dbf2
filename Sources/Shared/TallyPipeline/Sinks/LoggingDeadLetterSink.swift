public import Logging
import TallyCore

/// The dead-letter sink used when none is configured: each dead event is logged at `error` with
/// its full NDJSON line, so that nothing disappears without a trace.
public struct LoggingDeadLetterSink: DeadLetterSink {
    private let logger: Logger

    /// Logs to `logger`.
    public init(logger: Logger) {
        self.logger = logger
    }

    public func store(_ letter: DeadLetter) async throws {
        for event in letter.events {
            logger.error(
                "dead letter",
                metadata: [
                    "tally.sink": "\(letter.sinkName)",
                    "tally.reason": "\(letter.reason)",
                    "tally.attempts": "\(letter.attempts)",
                    "tally.event": "\(String(decoding: event.ndjsonLine.dropLast(), as: UTF8.self))",
                ]
            )
        }
    }
}
