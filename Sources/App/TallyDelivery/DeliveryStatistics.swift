/// What this process did since its ``TallyDelivery`` was made (the directory's lifetime counters
/// are in ``OutboxState``). After a graceful stop, ``tracked`` = ``written`` + ``dropped`` +
/// ``droppedByHooks`` + ``sampledOut`` + ``discardedNoConsent``.
public struct DeliveryStatistics: Sendable, Hashable {
    /// `track()` calls.
    public var tracked: UInt64
    /// Events written to the outbox.
    public var written: UInt64
    /// Events the collector acknowledged (from any process's batches).
    public var uploaded: UInt64
    /// Tracked events never written: a full queue, a full disk, refused after shutdown, or
    /// rejected by validation.
    public var dropped: UInt64
    /// Events of batches the collector refused for good.
    public var deadLettered: UInt64
    /// Of the ``uploaded`` events, those the collector refused one by one (an event its tracking
    /// plan does not allow): it keeps each with its reason, and `tally status` lists them. Read
    /// from the tally wire's reply; a Segment or PostHog reply does not list them.
    public var rejectedByCollector: UInt64 = 0
    /// Events the app's enrichment hooks dropped (on purpose; not in ``dropped``).
    public var droppedByHooks: UInt64 = 0
    /// Events sampling left out (on purpose; not in ``dropped``).
    public var sampledOut: UInt64 = 0
    /// Events discarded because the user opted out (consent denied): on purpose, not in
    /// ``dropped``, and never reported to the server nor kept on disk.
    public var discardedNoConsent: UInt64 = 0
    /// Requests sent, and those not answered 2xx.
    public var requests: UInt64
    public var failedRequests: UInt64
    /// Request bodies as sent (gzip), and before compression.
    public var bytesSent: UInt64
    public var uncompressedBytesSent: UInt64
}
