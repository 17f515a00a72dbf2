public import TallyCore

/// A batch a sink could not take after every retry, with the reason.
public struct DeadLetter: Sendable {
    /// The events, unchanged.
    public var events: [EventEnvelope]
    /// The sink that refused them.
    public var sinkName: String
    /// The last error's description (sinks keep secrets out of it).
    public var reason: String
    /// How many writes were tried.
    public var attempts: Int
    /// When the pipeline gave up.
    public var failedAt: Timestamp

    /// Creates a dead letter.
    public init(events: [EventEnvelope], sinkName: String, reason: String, attempts: Int, failedAt: Timestamp) {
        self.events = events
        self.sinkName = sinkName
        self.reason = reason
        self.attempts = attempts
        self.failedAt = failedAt
    }
}

/// Keeps what could not be delivered, so that nothing is lost silently.
public protocol DeadLetterSink: Sendable {
    /// Stores a dead letter. An error here is logged at `critical` and counted in
    /// ``PipelineStatistics/lost``: there is nowhere left to put the events.
    func store(_ letter: DeadLetter) async throws
}
