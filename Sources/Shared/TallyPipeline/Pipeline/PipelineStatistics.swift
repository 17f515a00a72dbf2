/// What the pipeline did so far. Every event handed over while the pipeline runs is
/// ``accepted``; those a full queue cost are also counted in ``dropped``; the rest
/// (`accepted - dropped`) are validated: ``rejected`` ones go to the dead-letter sink, the others
/// end up delivered by every sink or dead-lettered after failed writes.
public struct PipelineStatistics: Sendable, Hashable {
    /// Events handed over before shutdown began.
    public var accepted: UInt64
    /// Events lost to a full queue (`dropOldest` evictions, or `track()` refused under `block`).
    public var dropped: UInt64
    /// Events offered after shutdown began.
    public var refusedAfterShutdown: UInt64
    /// Events in the queue now.
    public var queued: Int
    /// Events refused by validation (policy `reject`) and sent to the dead-letter sink.
    public var rejected: UInt64
    /// Events kept despite violations (policy `annotate`).
    public var annotated: UInt64
    /// Events each sink took, by sink name.
    public var delivered: [String: UInt64]
    /// Failed writes that were tried again.
    public var retries: UInt64
    /// Events handed to the dead-letter sink after the last retry.
    public var deadLettered: UInt64
    /// Events the dead-letter sink could not store either (logged at `critical`).
    public var lost: UInt64

    /// Creates statistics.
    public init(
        accepted: UInt64 = 0,
        dropped: UInt64 = 0,
        refusedAfterShutdown: UInt64 = 0,
        queued: Int = 0,
        rejected: UInt64 = 0,
        annotated: UInt64 = 0,
        delivered: [String: UInt64] = [:],
        retries: UInt64 = 0,
        deadLettered: UInt64 = 0,
        lost: UInt64 = 0
    ) {
        self.accepted = accepted
        self.dropped = dropped
        self.refusedAfterShutdown = refusedAfterShutdown
        self.queued = queued
        self.rejected = rejected
        self.annotated = annotated
        self.delivered = delivered
        self.retries = retries
        self.deadLettered = deadLettered
        self.lost = lost
    }
}
