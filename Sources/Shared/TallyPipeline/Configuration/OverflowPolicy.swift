/// What the pipeline does when its queue is full.
public enum OverflowPolicy: String, Sendable, CaseIterable {
    /// Async producers wait until there is room: backpressure, nothing dropped. What ingest uses.
    ///
    /// A synchronous `track()` cannot wait: under this policy it refuses the new event when the
    /// queue is full, and counts it in ``PipelineStatistics/dropped``.
    case block
    /// The oldest queued event makes room for the new one, and is counted as dropped.
    /// What the in-app tracker uses: the caller never waits.
    case dropOldest
}
