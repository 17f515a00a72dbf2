/// How an ``EventPipeline`` batches, queues and retries. Every field has a default.
public struct PipelineConfiguration: Sendable, Hashable {
    /// The most events in one batch: as soon as this many are queued, the batcher takes everything
    /// queued and writes it in batches of at most this size. A batch never waits for more events
    /// than ``queueCapacity`` can hold.
    public var maxBatchSize: Int
    /// The longest an event waits for a batch to fill before it is written anyway.
    public var batchInterval: Duration
    /// The most events queued between producers and the batcher. The batcher itself may hold as
    /// many again while it hands them to the sinks, so memory stays under about twice this.
    public var queueCapacity: Int
    /// What happens when the queue is full.
    public var overflowPolicy: OverflowPolicy
    /// The most batches queued for one sink; a sink that falls this far behind slows the
    /// pipeline down (backpressure) instead of growing without bound.
    public var sinkQueueDepth: Int
    /// How failed sink writes are retried.
    public var retry: RetryPolicy
    /// The longest one sink write, flush or shutdown may take. Past it the call is cancelled (the
    /// PostgreSQL sink cancels its statement on the server) and counts as a failed attempt with a
    /// ``PipelineError/Code/timedOut`` error: a write is retried, then dead-lettered. A sink must
    /// return promptly once its task is cancelled for this to hold.
    public var sinkTimeout: Duration

    /// The defaults suit ingest: 1,000-event batches, 1 s interval, 100,000 queued events, `block`,
    /// 30 s for a sink call.
    public init(
        maxBatchSize: Int = 1_000,
        batchInterval: Duration = .seconds(1),
        queueCapacity: Int = 100_000,
        overflowPolicy: OverflowPolicy = .block,
        sinkQueueDepth: Int = 8,
        retry: RetryPolicy = RetryPolicy(),
        sinkTimeout: Duration = .seconds(30)
    ) {
        precondition(maxBatchSize >= 1, "maxBatchSize must be at least 1")
        precondition(queueCapacity >= 1, "queueCapacity must be at least 1")
        precondition(sinkQueueDepth >= 1, "sinkQueueDepth must be at least 1")
        precondition(batchInterval > .zero, "batchInterval must be positive")
        precondition(sinkTimeout > .zero, "sinkTimeout must be positive")
        self.maxBatchSize = maxBatchSize
        self.batchInterval = batchInterval
        self.queueCapacity = queueCapacity
        self.overflowPolicy = overflowPolicy
        self.sinkQueueDepth = sinkQueueDepth
        self.retry = retry
        self.sinkTimeout = sinkTimeout
    }

    /// For the in-app tracker: `dropOldest`, a 10,000-event queue, 100-event batches every 5 s.
    public static let inApp = PipelineConfiguration(
        maxBatchSize: 100,
        batchInterval: .seconds(5),
        queueCapacity: 10_000,
        overflowPolicy: .dropOldest
    )
}
