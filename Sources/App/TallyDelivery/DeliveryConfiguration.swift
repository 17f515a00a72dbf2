public import Foundation
public import TallyPipeline
public import TallySchema

/// How an app's events reach the collector: the outbox, its caps, the uploader's schedule, wire
/// and retries. Only the outbox directory, the endpoint and the write key have no default.
public struct DeliveryConfiguration: Sendable {
    /// The collector's request limits the uploader stays within (`tally serve`'s defaults).
    public struct RequestLimits: Sendable, Hashable {
        /// The most events in one request.
        public var maxEvents: Int
        /// The most bytes of a request body as sent (gzip).
        public var maxBytes: Int
        /// The most bytes of a request body before compression.
        public var maxUncompressedBytes: Int

        /// 1,000 events, 500 KB as sent, 8 MB uncompressed.
        public init(maxEvents: Int = 1_000, maxBytes: Int = 500_000, maxUncompressedBytes: Int = 8_000_000) {
            self.maxEvents = maxEvents
            self.maxBytes = maxBytes
            self.maxUncompressedBytes = maxUncompressedBytes
        }
    }

    /// The outbox directory (created when missing). Processes sharing it (an app and its
    /// extension) share one outbox: one request in flight at a time, counters exact.
    public var outboxDirectory: String
    /// The collector's base URL (`https://collector.example.com`); the route is added.
    public var endpoint: URL
    /// The source's write key.
    public var writeKey: String
    /// tally's own wire (default) or Segment's.
    public var wireFormat: WireFormat = .tally
    /// How often the events tracked in memory are written to the outbox: the most a `kill -9`
    /// can lose. One second by default.
    public var batchInterval: Duration = .seconds(1)
    /// The most events in one batch file.
    public var maxBatchSize: Int = 1_000
    /// The most events held in memory between two writes; past it the oldest are dropped (and
    /// counted). Bounds memory when the disk is full too.
    public var queueCapacity: Int = 10_000
    /// How often the uploader sends what waits.
    public var uploadInterval: Duration = .seconds(10)
    /// Upload as soon as this many events wait, without waiting for the interval.
    public var uploadThreshold: Int = 100
    /// What the outbox keeps at most.
    public var caps = OutboxCaps()
    /// The collector's request limits.
    public var limits = RequestLimits()
    /// The waits after failed requests: 0.5 s doubling to 30 s, each up to half shorter (jitter).
    public var backoff = RetryPolicy(
        maxAttempts: .max,
        initialBackoff: .milliseconds(500),
        multiplier: 2,
        maxBackoff: .seconds(30),
        jitter: 0.5
    )
    /// The longest `Retry-After` honoured.
    public var maxRetryAfter: Duration = .seconds(600)
    /// The longest one request may take.
    public var requestTimeout: Duration = .seconds(30)
    /// How long a graceful stop keeps uploading after the last events were written to the outbox.
    public var shutdownUploadTimeout: Duration = .seconds(10)
    /// Validation before the outbox, if any (the collector validates anyway).
    public var validation: EventValidation?

    // MARK: The app SDK: identity, context, sessions, lifecycle, enrichment

    /// The context filled into every event (automatic, overridable).
    public var context = ContextConfiguration()
    /// Sessions (`session_id` on every event); nil turns them off.
    public var sessions: SessionConfiguration? = SessionConfiguration()
    /// Lifecycle events (`Application Opened`, …); nil (the default) tracks none.
    public var lifecycle: LifecycleConfiguration?
    /// Hooks that change or drop each event before it is written to the outbox, in order.
    public var enrichment: [EnrichmentHook] = []

    // MARK: Privacy: consent, personal data, sampling

    /// The consent of a new install (no `consent.json` in the outbox directory yet): `.granted`
    /// unless the app asks first (`.pending`: events wait in the outbox until the user decides).
    public var defaultConsent: ConsentState = .granted
    /// The app's tracking plan: its `x-tally-personal-data` properties are removed or hashed and
    /// its `x-tally-sample-rate` events sampled before the outbox. Nil: neither.
    public var trackingPlan: SchemaRegistry?
    /// A secret of the app's (a pepper) under which personal data is hashed (HMAC-SHA-256), so
    /// that hashing a list of likely values (every email address) does not reverse it. Nil: plain
    /// SHA-256, which anyone can recompute to join on a known value.
    public var personalDataSalt: String?

    /// A configuration with the defaults above.
    public init(outboxDirectory: String, endpoint: URL, writeKey: String) {
        self.outboxDirectory = outboxDirectory
        self.endpoint = endpoint
        self.writeKey = writeKey
    }
}
