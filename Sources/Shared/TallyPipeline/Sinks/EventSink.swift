public import TallyCore

/// Where batches of events go: stdout, a file store, PostgreSQL, a test double.
///
/// By default the pipeline calls one sink from one task at a time, in batch order, so
/// implementations need no locking of their own for ordering (see ``maxConcurrentWrites``). A thrown error from ``write(_:)`` makes the pipeline retry
/// the same batch (same events, same ids: sinks must tolerate seeing a batch again) and finally
/// dead-letter it; it never stops the pipeline or the other sinks. Throw a ``ClassifiedError`` to
/// say that a retry cannot help (the batch is then dead-lettered at once).
///
/// Each call runs under ``PipelineConfiguration/sinkTimeout``: past it the call's task is
/// cancelled, so return promptly once cancelled; and keep blocking system calls off Swift's
/// cooperative threads (tally's own sinks run them on a dispatch queue).
public protocol EventSink: Sendable {
    /// A short name for logs, statistics and dead letters (`file`, `stdout`, `postgres`).
    var name: String { get }

    /// Writes one batch. Return only once the sink has taken the events; durability may wait for
    /// ``flush()``.
    func write(_ batch: [EventEnvelope]) async throws

    /// Makes everything written so far durable (fsync, commit).
    func flush() async throws

    /// Flushes and releases resources. Called once, after the last write.
    func shutdown() async throws

    /// How many batches the pipeline may hand to ``write(_:)`` at once (default 1: one at a time,
    /// in order). A sink whose store is idempotent and order-free (PostgreSQL) can take more.
    var maxConcurrentWrites: Int { get }
}

extension EventSink {
    /// One batch at a time, in order.
    public var maxConcurrentWrites: Int { 1 }

    /// Nothing to make durable.
    public func flush() async throws {}

    /// Flushes; nothing else to release.
    public func shutdown() async throws { try await flush() }
}
