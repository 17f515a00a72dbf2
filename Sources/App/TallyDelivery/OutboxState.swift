/// A snapshot of an outbox directory for the app's own diagnostics: what waits, and the
/// directory's lifetime counters (exact across restarts, `kill -9` and processes sharing it).
///
/// Events `written` to the outbox end up ``uploaded``, dropped past the caps
/// (``DiagnosticCounts/droppedCaps``), moved to `corrupt/` (``DiagnosticCounts/corruptEvents``),
/// dead-lettered, ``purged``, or still ``waitingEvents``: those six add up to ``written``.
/// ``dropped`` also counts events lost before they reached the outbox (a full queue, a full disk).
public struct OutboxState: Sendable, Hashable {
    /// Random per directory; the `outbox_id` of its `outbox_diagnostics` reports.
    public var outboxID: String
    /// Events in `batches/` now.
    public var waitingEvents: Int
    /// Batch files in `batches/` now (reports not included).
    public var waitingBatches: Int
    /// Their bytes (``OutboxCaps/maxBytes`` also counts a waiting report's).
    public var waitingBytes: Int
    /// How long ago the oldest waiting batch was written; nil when none waits.
    public var oldestAge: Duration?
    /// Events written to the outbox, ever.
    public var written: UInt64
    /// Events the collector acknowledged, ever.
    public var uploaded: UInt64
    /// Events removed by a purge, ever.
    public var purged: UInt64
    /// Losses, ever (each also reported to the server).
    public var losses: DiagnosticCounts

    /// Every event dropped: by the queue, the caps or a full disk.
    public var dropped: UInt64 { losses.dropped }
    /// Events the collector refused for good (kept in `dead-letter/`).
    public var deadLettered: UInt64 { losses.deadLetteredEvents }
    /// Events of batch files found corrupt (kept in `corrupt/`).
    public var corruptEvents: UInt64 { losses.corruptEvents }
    /// Events the app's enrichment hooks dropped before the outbox, ever (not in ``dropped``).
    public var droppedByHooks: UInt64 { losses.droppedByHooks }
    /// Events sampling left out before the outbox, ever (not in ``dropped``).
    public var sampledOut: UInt64 { losses.sampledOut }

    package init(
        outboxID: String,
        waitingEvents: Int,
        waitingBatches: Int,
        waitingBytes: Int,
        oldestAge: Duration?,
        written: UInt64,
        uploaded: UInt64,
        purged: UInt64,
        losses: DiagnosticCounts
    ) {
        self.outboxID = outboxID
        self.waitingEvents = waitingEvents
        self.waitingBatches = waitingBatches
        self.waitingBytes = waitingBytes
        self.oldestAge = oldestAge
        self.written = written
        self.uploaded = uploaded
        self.purged = purged
        self.losses = losses
    }
}
