import DequeModule
public import Logging
public import ServiceLifecycle
public import TallyCore
import TallySchema

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
// A final class, not an actor: all of its state is immutable or behind its own locks, so no call
// needs to hop to an executor of its own.
public final class EventPipeline: Service, Sendable {
    /// How the pipeline batches, queues and retries.
    public let configuration: PipelineConfiguration
    let buffer: EventBuffer
    private let workers: [SinkWorker]
    private let counters = Locked(SinkCounters())
    /// Validation before the sinks, if any.
    public let validation: EventValidation?
    private let deadLetters: any RejectSink
    private let clock: any Clock<Duration>
    private let logger: Logger
    private let hasStarted = Locked(false)

    /// Creates a pipeline. Nothing runs until ``run()``.
    ///
    /// - Parameters:
    ///   - sinks: where batches go; give each a distinct ``EventSink/name``.
    ///   - deadLetters: where events go that a sink refused after every retry, or that the
    ///     validation refused, as ``Reject``s; by default they are logged in full at `error` level.
    ///   - configuration: batching, queueing and retry settings.
    ///   - validation: the tracking plan and policy each event is checked against before the
    ///     sinks; nil to deliver events unchecked.
    ///   - clock: the clock for batch intervals and retry backoff; tests pass a manual one.
    ///   - logger: where the pipeline reports retries, drops and dead letters.
    public convenience init(
        sinks: [any EventSink],
        deadLetters: (any RejectSink)? = nil,
        configuration: PipelineConfiguration = PipelineConfiguration(),
        validation: EventValidation? = nil,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "tally.pipeline")
    ) {
        self.init(
            queue: PipelineQueue(configuration: configuration),
            sinks: sinks,
            deadLetters: deadLetters,
            configuration: configuration,
            validation: validation,
            clock: clock,
            logger: logger
        )
    }

    /// A pipeline over `queue`, made beforehand with the same `configuration`.
    package init(
        queue: PipelineQueue,
        sinks: [any EventSink],
        deadLetters: (any RejectSink)? = nil,
        configuration: PipelineConfiguration = PipelineConfiguration(),
        validation: EventValidation? = nil,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "tally.pipeline")
    ) {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        buffer = queue.buffer
        self.validation = validation
        let deadLetters = deadLetters ?? LoggingRejectSink(logger: logger)
        self.deadLetters = deadLetters
        workers = sinks.map { [counters] sink in
            SinkWorker(
                sink: sink,
                queue: AsyncBoundedQueue(capacity: configuration.sinkQueueDepth),
                retry: configuration.retry,
                timeout: configuration.sinkTimeout,
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
    public func offer(_ event: EventEnvelope) -> Bool {
        buffer.offer(event)
    }

    /// Hands one event over, waiting for room under ``OverflowPolicy/block``.
    /// - Throws: ``PipelineError`` with code ``PipelineError/Code/closed`` once shutdown began;
    ///   `CancellationError` if the task is cancelled while waiting.
    public func send(_ event: EventEnvelope) async throws {
        try checkStrict(event)
        try await buffer.append(contentsOf: CollectionOfOne(event))
    }

    /// Hands events over in order, waiting for room under ``OverflowPolicy/block``.
    /// - Throws: as ``send(_:)``; events before the failure were accepted.
    public func send(contentsOf events: some Collection<EventEnvelope>) async throws {
        try await enqueue(events)
    }

    /// Hands events over in order, as the generic `send(contentsOf:)`: the overload for arrays,
    /// specialized here. Called from another module, the generic one copied each event through
    /// value witnesses (3 % of `tally ingest`'s CPU time).
    public func send(contentsOf events: [EventEnvelope]) async throws {
        try await enqueue(events)
    }

    private func enqueue(_ events: some Collection<EventEnvelope>) async throws {
        if validation?.policy == .strict {
            for event in events { try checkStrict(event) }
        }
        try await buffer.append(contentsOf: events)
    }

    /// Under the `strict` policy, invalid events fail at the call site.
    private func checkStrict(_ event: EventEnvelope) throws {
        guard let validation, validation.policy == .strict else { return }
        let result = validation.validator.validate(event)
        guard result.isValid else {
            throw PipelineError(code: .invalidEvent, message: "\(event.name): \(result.summary)")
        }
    }

    /// A `TrackerContract` that feeds this pipeline: what feature modules are given.
    public func tracker(
        feature: String? = nil,
        identity: TrackerIdentity = TrackerIdentity(),
        context: EventContext? = nil
    ) -> PipelineTracker {
        tracker(feature: feature, identity: identity, context: context, stamp: nil)
    }

    /// A tracker whose events also get `stamp`'s fields at `track()` (the app-side library's
    /// identity, session and super properties).
    package func tracker(
        feature: String?,
        identity: TrackerIdentity,
        context: EventContext?,
        stamp: PipelineTracker.Stamp?
    ) -> PipelineTracker {
        PipelineTracker(
            buffer: buffer,
            feature: feature,
            identity: identity,
            context: context,
            strictValidator: validation?.policy == .strict ? validation?.validator : nil,
            stamp: stamp
        )
    }

    /// Returns once every event accepted before the call was written by every sink and each sink
    /// was flushed (made durable). Waits for ``run()`` if it has not started. A cancelled caller
    /// stops waiting at once; the flush itself goes on.
    public func flush() async {
        let ticket = FlushTicket(parts: workers.count)
        buffer.requestFlush(ticket)
        await ticket.wait()
    }

    /// Begins a graceful shutdown without a `ServiceGroup`: new events are refused, queued ones
    /// are delivered, and ``run()`` returns once the sinks are shut down.
    public func shutdown() {
        buffer.close()
    }

    /// Whether shutdown began: new events are refused from now on.
    public var isShuttingDown: Bool { buffer.isClosed }

    /// What the pipeline did so far.
    public var statistics: PipelineStatistics {
        let counts = buffer.counts
        let sinkCounts = counters.withLock { $0 }
        return PipelineStatistics(
            accepted: counts.accepted,
            dropped: counts.dropped,
            refusedAfterShutdown: counts.refusedAfterClose,
            queued: counts.queued,
            rejected: sinkCounts.rejected,
            annotated: sinkCounts.annotated,
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
        let alreadyStarted = hasStarted.withLock { started in
            defer { started = true }
            return started
        }
        guard !alreadyStarted else {
            throw PipelineError(code: .alreadyRunning, message: "run() was called on a pipeline that already ran")
        }
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

    private func process() async {
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
    private func batch() async {
        var taken = Deque<EventEnvelope>()
        while let work = await buffer.next(reusing: &taken) {
            switch work {
            case .events:
                if validation != nil { await validate(&taken) }
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

    /// Validates each event on its own: invalid ones leave the batch (reject) or are marked (annotate).
    private func validate(_ events: inout Deque<EventEnvelope>) async {
        guard let validation else { return }
        var rejected: [Reject] = []
        var annotated: UInt64 = 0
        var kept = Deque<EventEnvelope>()
        kept.reserveCapacity(events.count)
        // Popped, not iterated: each event is then uniquely owned, and the validator's writes
        // (feature, schema version, normalized values) do not copy its storage.
        while let event = events.popFirst() {
            let result = validation.validator.validate(event)
            if result.isValid {
                kept.append(result.event)
            } else if validation.policy == .annotate {
                var marked = result.event
                marked.violations = result.violations.map(\.description)
                kept.append(marked)
                annotated += 1
            } else {
                var first = result.violations[0]
                if result.violations.count > 1 { first.message = result.summary }
                rejected.append(
                    Reject(
                        content: .event(result.event),
                        reason: Reject.Reason(first),
                        origin: .sink(name: "validation", attempts: 0),
                        failedAt: .now()
                    )
                )
            }
        }
        events = kept
        counters.withLock {
            $0.rejected += UInt64(rejected.count)
            $0.annotated += annotated
        }
        guard !rejected.isEmpty else { return }
        for reject in rejected {
            logger.debug(
                "event rejected by validation",
                metadata: ["tally.event": "\(reject.event?.name ?? "")", "tally.reason": "\(reject.reason.code)"]
            )
        }
        do {
            try await deadLetters.store(rejected)
        } catch {
            counters.withLock { $0.lost += UInt64(rejected.count) }
            logger.critical("dead-letter sink failed: rejected events lost", metadata: ["error": "\(error)"])
        }
    }

    /// Every `batchInterval` while events wait: a partial batch is then due, and drops are
    /// reported. With the queue empty it waits for the next event instead of ticking, so an idle
    /// app's process is not woken once a second for nothing.
    private func runTicker<C: Clock>(clock: C) async where C.Duration == Duration {
        while !Task.isCancelled {
            await buffer.waitUntilTickable()
            do {
                try await clock.sleep(for: configuration.batchInterval)
            } catch {
                return
            }
            reportDrops(buffer.tick())
        }
    }

    private func reportDrops(_ drops: UInt64) {
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
