import AsyncAlgorithms
import DequeModule
public import Logging
public import ServiceLifecycle
public import TallyCore

/// The batching pipeline: producers hand events over, batches fan out to sinks.
///
/// Events come from a ``PipelineTracker`` (synchronous `track()`, never waits) or from async
/// producers (``send(_:)``, which waits for room under ``OverflowPolicy/block``). They are batched
/// by count or interval, whichever comes first, and each batch goes to every sink through the
/// sink's own bounded queue, with retries and a dead-letter sink behind them.
///
/// Run it as a swift-service-lifecycle `Service` (or call ``run()`` in a task of your own): on
/// graceful shutdown (SIGTERM/SIGINT through a `ServiceGroup`, or ``shutdown()``) it stops
/// accepting, delivers everything queued, flushes and shuts down the sinks, then returns.
///
/// ```swift
/// let pipeline = EventPipeline(sinks: [FileSink(directory: dataDirectory)], logger: logger)
/// let tracker = pipeline.tracker(feature: "episode")
/// let group = ServiceGroup(services: [pipeline], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
public actor EventPipeline: Service {
    /// How the pipeline batches, queues and retries.
    public nonisolated let configuration: PipelineConfiguration
    nonisolated let buffer: EventBuffer
    private nonisolated let workers: [SinkWorker]
    private nonisolated let counters = Locked(SinkCounters())
    private nonisolated let clock: any Clock<Duration>
    private nonisolated let logger: Logger
    private var hasStarted = false

    /// Creates a pipeline. Nothing runs until ``run()``.
    ///
    /// - Parameters:
    ///   - sinks: where batches go; give each a distinct ``EventSink/name``.
    ///   - deadLetters: where batches go that a sink refused after every retry; by default they are
    ///     logged in full at `error` level.
    ///   - configuration: batching, queueing and retry settings.
    ///   - clock: the clock for batch intervals and retry backoff; tests pass a manual one.
    ///   - logger: where the pipeline reports retries, drops and dead letters.
    public init(
        sinks: [any EventSink],
        deadLetters: (any DeadLetterSink)? = nil,
        configuration: PipelineConfiguration = PipelineConfiguration(),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "tally.pipeline")
    ) {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        buffer = EventBuffer(
            capacity: configuration.queueCapacity,
            maxBatchSize: configuration.maxBatchSize,
            policy: configuration.overflowPolicy
        )
        let deadLetters = deadLetters ?? LoggingDeadLetterSink(logger: logger)
        workers = sinks.map { [counters] sink in
            SinkWorker(
                sink: sink,
                queue: AsyncBoundedQueue(capacity: configuration.sinkQueueDepth),
                retry: configuration.retry,
                clock: clock,
                deadLetters: deadLetters,
                counters: counters,
                logger: logger
            )
        }
    }

    // MARK: Producers

    /// Hands one event over without waiting. Returns false if it was refused: the pipeline is
    /// shutting down, or the queue is full under ``OverflowPolicy/block``. Either way it is counted.
    @discardableResult
    public nonisolated func offer(_ event: EventEnvelope) -> Bool {
        buffer.offer(event)
    }

    /// Hands one event over, waiting for room under ``OverflowPolicy/block``.
    /// - Throws: ``PipelineError`` with code ``PipelineError/Code/closed`` once shutdown began;
    ///   `CancellationError` if the task is cancelled while waiting.
    public nonisolated func send(_ event: EventEnvelope) async throws {
        try await buffer.append(contentsOf: CollectionOfOne(event))
    }

    /// Hands events over in order, waiting for room under ``OverflowPolicy/block``.
    /// - Throws: as ``send(_:)``; events before the failure were accepted.
    public nonisolated func send(contentsOf events: some Collection<EventEnvelope>) async throws {
        try await buffer.append(contentsOf: events)
    }

    /// A `TrackerContract` that feeds this pipeline: what feature modules are given.
    public nonisolated func tracker(
        feature: String? = nil,
        identity: TrackerIdentity = TrackerIdentity(),
        context: EventContext? = nil
    ) -> PipelineTracker {
        PipelineTracker(buffer: buffer, feature: feature, identity: identity, context: context)
    }

    /// Returns once every event accepted before the call was written by every sink and each sink
    /// was flushed (made durable). Waits for ``run()`` if it has not started.
    public nonisolated func flush() async {
        let ticket = FlushTicket(parts: workers.count)
        buffer.requestFlush(ticket)
        await ticket.wait()
    }

    /// Begins a graceful shutdown without a `ServiceGroup`: new events are refused, queued ones
    /// are delivered, and ``run()`` returns once the sinks are shut down.
    public nonisolated func shutdown() {
        buffer.close()
    }

    /// Whether shutdown began: new events are refused from now on.
    public nonisolated var isShuttingDown: Bool { buffer.isClosed }

    /// What the pipeline did so far.
    public nonisolated var statistics: PipelineStatistics {
        let counts = buffer.counts
        let sinkCounts = counters.withLock { $0 }
        return PipelineStatistics(
            accepted: counts.accepted,
            dropped: counts.dropped,
            refusedAfterShutdown: counts.refusedAfterClose,
            queued: counts.queued,
            delivered: sinkCounts.delivered,
            retries: sinkCounts.retries,
            deadLettered: sinkCounts.deadLettered,
            lost: sinkCounts.lost
        )
    }

    // MARK: Service

    /// Batches and delivers until graceful shutdown (or cancellation), then drains the queue,
    /// flushes and shuts down every sink. Cancellation drains too, but skips retry waits.
    public func run() async throws {
        guard !hasStarted else {
            throw PipelineError(code: .alreadyRunning, message: "run() was called on a pipeline that already ran")
        }
        hasStarted = true
        logger.debug("pipeline started", metadata: ["tally.sinks": "\(workers.map(\.sink.name))"])
        let buffer = self.buffer
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await self.process()
            } onCancel: {
                buffer.close()
            }
        } onGracefulShutdown: {
            buffer.close()
        }
        reportDrops(buffer.tick())
        let statistics = self.statistics
        logger.debug(
            "pipeline stopped",
            metadata: [
                "tally.accepted": "\(statistics.accepted)", "tally.dropped": "\(statistics.dropped)",
                "tally.dead_lettered": "\(statistics.deadLettered)",
            ]
        )
    }

    private nonisolated func process() async {
        await withTaskGroup(of: Void.self) { outer in
            outer.addTask { await self.runTicker(clock: self.clock) }
            await withTaskGroup(of: Void.self) { inner in
                for worker in workers {
                    inner.addTask { await worker.run() }
                }
                await batch()
                for worker in workers { worker.queue.finish() }
            }
            outer.cancelAll()
        }
    }

    /// Moves batches and flush requests from the event queue to every sink's queue.
    private nonisolated func batch() async {
        var taken = Deque<EventEnvelope>()
        while let work = await buffer.next(reusing: &taken) {
            switch work {
            case .events:
                var start = taken.startIndex
                while start < taken.endIndex {
                    let end =
                        taken.index(start, offsetBy: configuration.maxBatchSize, limitedBy: taken.endIndex)
                        ?? taken.endIndex
                    let batch = Array(taken[start..<end])
                    for worker in workers { await worker.queue.push(.batch(batch)) }
                    start = end
                }
                taken.removeAll(keepingCapacity: true)
            case .flush(let ticket):
                if workers.isEmpty { ticket.complete() }
                for worker in workers { await worker.queue.push(.flush(ticket)) }
            }
        }
    }

    private nonisolated func runTicker<C: Clock>(clock: C) async where C.Duration == Duration {
        for await _ in AsyncTimerSequence(interval: configuration.batchInterval, clock: clock) {
            reportDrops(buffer.tick())
        }
    }

    private nonisolated func reportDrops(_ drops: UInt64) {
        guard drops > 0 else { return }
        logger.warning(
            "queue full: events dropped",
            metadata: [
                "tally.dropped": "\(drops)", "tally.policy": "\(configuration.overflowPolicy)",
                "tally.queue_capacity": "\(configuration.queueCapacity)",
            ]
        )
    }
}
