/// Keeps rejects, so that nothing is lost silently: the pipeline's dead letters, the collector's
/// refused events, `tally ingest`'s rejected lines.
///
/// tally's own: `FileRejectSink` (the file store's files), `PostgresRejectSink`
/// (`tally.failed_events`), ``LoggingRejectSink``, and `InMemoryRejectSink` in
/// `TallyPipelineTesting`.
public protocol RejectSink: Sendable {
    /// Stores `rejects`, durably (written and fsynced, committed) before it returns. When it
    /// throws, none of them may be counted as kept: the pipeline counts them in
    /// ``PipelineStatistics/lost`` and logs them at `critical`, the collector answers 503 and the
    /// client sends them again.
    func store(_ rejects: [Reject]) async throws
}
