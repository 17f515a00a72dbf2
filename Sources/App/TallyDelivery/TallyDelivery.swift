import Foundation
public import Logging
public import ServiceLifecycle
public import TallyCore
public import TallyPipeline
import Tracking

/// An app's delivery: tracked events go through the pipeline into a disk outbox, and an
/// uploader moves the outbox to a collector; nothing is lost silently and nothing arrives twice.
///
/// `track()` (through ``tracker(feature:identity:context:)``) never touches the disk: events wait
/// in memory and are written as one batch file every ``DeliveryConfiguration/batchInterval``
/// (one second by default, the most a `kill -9` can lose), and on ``flush(timeout:)``,
/// ``appWillSuspend(budget:)`` or a graceful stop. Run it as a swift-service-lifecycle `Service`:
///
/// ```swift
/// let delivery = try TallyDelivery(configuration: configuration, logger: logger)
/// let tracker = delivery.tracker(feature: "episode")
/// let group = ServiceGroup(services: [delivery], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
public final class TallyDelivery: Service, Sendable {
    /// The settings in use.
    public let configuration: DeliveryConfiguration
    private let pipeline: EventPipeline
    let store: OutboxStore
    private let outboxCounters: Locked<Outbox.RunCounters>
    let uploader: Uploader
    private let queueDropsReported = Locked<UInt64>(0)
    private let logger: Logger
    /// The app SDK's identity, session and super properties.
    let identity: IdentityCenter
    private let lifecycle: LifecycleReporter?
    /// Consent: `OUTBOX/consent.json`, and the events discarded without it.
    let consentStore: ConsentStore
    let discardedNoConsent = Locked<UInt64>(0)

    /// Opens (creating) the outbox directory and reconciles its counters; nothing runs until ``run()``.
    /// - Throws: ``DeliveryError`` with ``DeliveryError/Code/invalidConfiguration`` when a setting
    ///   is out of range (nothing is created then), ``DeliveryError/Code/outboxUnavailable`` when
    ///   the directory or its lock files cannot be created.
    public init(configuration: DeliveryConfiguration, logger: Logger = Logger(label: "tally.delivery")) throws {
        if let problem = configuration.problem { throw DeliveryError(.invalidConfiguration, problem) }
        self.configuration = configuration
        self.logger = logger
        let outbox = try Outbox(directory: configuration.outboxDirectory, caps: configuration.caps, logger: logger)
        outboxCounters = outbox.run
        // Consent first: a remembered opt-out empties what a crash may have left, before anything runs.
        let consent = ConsentStore(layout: outbox.layout, defaultState: configuration.defaultConsent, logger: logger)
        consentStore = consent
        if consent.state == .denied { outbox.purge() }
        let store = OutboxStore(outbox)
        self.store = store
        let uploader = Uploader(store: store, configuration: configuration, logger: logger, consent: consent)
        self.uploader = uploader
        let pipelineConfiguration = PipelineConfiguration(
            maxBatchSize: configuration.maxBatchSize,
            batchInterval: configuration.batchInterval,
            queueCapacity: configuration.queueCapacity,
            overflowPolicy: .dropOldest,
            retry: .none
        )
        let drops = queueDropsReported
        let threshold = configuration.uploadThreshold
        // The pipeline's queue, made first: the sink reads its drop count, identity records enter it.
        let queue = PipelineQueue(configuration: pipelineConfiguration)
        // The app SDK: the install's identity and session from identity.json, the automatic context.
        let automatic = AutomaticContext(configuration.context, libraryVersion: Self.libraryVersion)
        let identityStore = IdentityStore(layout: outbox.layout, logger: logger)
        let stored = identityStore.load()
        var install = stored ?? InstallState(anonymousID: UUID().uuidString.lowercased())
        (install.appVersion, install.appBuild) = (automatic.appVersion, automatic.appBuild)
        let identity = IdentityCenter(
            install: install,
            saved: stored,
            sessions: configuration.sessions,
            store: identityStore,
            offer: { envelope in queue.offer(envelope) }
        )
        self.identity = identity
        var sink = OutboxSink(
            store: store,
            queueDrops: {
                let dropped = queue.dropped
                return drops.withLock { reported in
                    defer { reported = max(reported, dropped) }
                    return dropped > reported ? dropped - reported : 0
                }
            },
            written: { waiting in if waiting >= threshold { uploader.nudge() } }
        )
        let network = NetworkStatus()
        sink.preparation = Self.preparation(
            configuration,
            context: configuration.context.automatic ? automatic.context : configuration.context.overrides,
            network: { network.current }
        )
        sink.beforeWrite = { identity.saveIfChanged() }
        let discarded = discardedNoConsent
        sink.consent = consent
        sink.discarded = { count in discarded.withLock { $0 += UInt64(count) } }
        let pipeline = EventPipeline(
            queue: queue,
            sinks: [sink],
            configuration: pipelineConfiguration,
            validation: configuration.validation,
            logger: logger
        )
        self.pipeline = pipeline
        identity.saveIfChanged(force: true)
        lifecycle = configuration.lifecycle.map {
            LifecycleReporter($0, version: automatic.appVersion, build: automatic.appBuild, identity: identity)
        }
        lifecycle?.launch(stored: stored)
    }

    /// A `TrackerContract` for a feature module: `track()` stamps an id and a time and queues the
    /// event in memory, without disk I/O or waiting.
    public func tracker(
        feature: String? = nil,
        identity: TrackerIdentity = TrackerIdentity(),
        context: EventContext? = nil
    ) -> PipelineTracker {
        let center = self.identity
        return pipeline.tracker(feature: feature, identity: identity, context: context) { center.stamp(&$0) }
    }

    // MARK: Service

    /// Writes batches and uploads until graceful shutdown; then writes what is in memory to the
    /// outbox and keeps uploading for ``DeliveryConfiguration/shutdownUploadTimeout`` (what does not
    /// make it stays in the outbox for the next launch). Cancellation skips the uploads.
    public func run() async throws {
        let pipeline = self.pipeline
        let uploader = self.uploader
        lifecycle?.start()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pipeline.run() }
            group.addTask { await uploader.run() }
            try await group.waitForAll()
        }
        await writeQueueDrops()
        await saveIdentity()
        guard !Task.isCancelled else { return }
        _ = await uploader.drain(until: .now + configuration.shutdownUploadTimeout)
    }

    // MARK: Control

    /// Writes every event tracked so far to the outbox, then uploads until the outbox is empty or
    /// `timeout` passes (a backoff that would outlast it ends the wait early). Returns whether the
    /// outbox is empty. `timeout` bounds the uploads only: the write is always waited for, so that
    /// nothing is lost if the app is killed next (on a disk busy with other writes, its fsyncs can
    /// take seconds). Needs ``run()`` to be running.
    @discardableResult
    public func flush(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        await pipeline.flush()
        await writeQueueDrops()
        await saveIdentity()
        return await uploader.drain(until: deadline)
    }

    /// The hook for an app about to be suspended: call it inside `beginBackgroundTask` (from
    /// `sceneDidEnterBackground`) or from a `BGTaskScheduler` task, and end the task when it
    /// returns. It writes what is in memory to the outbox at once (nothing is lost if the app is
    /// then killed), then uploads for at most `budget`. Returns whether the outbox is empty.
    @discardableResult
    public func appWillSuspend(budget: Duration = .seconds(20)) async -> Bool {
        await flush(timeout: budget)
    }

    /// Deletes every event waiting, in memory and in the outbox (counted as purged, not as lost):
    /// what an app does when the user opts out. Needs ``run()`` to be running.
    public func purge() async {
        await pipeline.flush()
        await store.run { $0.purge() }
    }

    /// The outbox's state: events waiting, the oldest one's age, lifetime drops and dead letters.
    public func state() async -> OutboxState {
        await store.run { $0.snapshot() }
    }

    /// This process's counters.
    public var statistics: DeliveryStatistics {
        let pipeline = self.pipeline.statistics
        let outbox = outboxCounters.withLock { $0 }
        let sent = uploader.counters.withLock { $0 }
        return DeliveryStatistics(
            tracked: pipeline.accepted + pipeline.refusedAfterShutdown,
            written: outbox.written,
            uploaded: outbox.uploaded,
            dropped: pipeline.dropped + pipeline.refusedAfterShutdown + pipeline.rejected + outbox.droppedDiskFull,
            deadLettered: outbox.deadLettered,
            rejectedByCollector: sent.rejectedByCollector,
            droppedByHooks: outbox.droppedByHooks,
            sampledOut: outbox.sampledOut,
            discardedNoConsent: discardedNoConsent.withLock { $0 },
            requests: sent.requests,
            failedRequests: sent.failures,
            bytesSent: sent.bytesSent,
            uncompressedBytesSent: sent.uncompressedBytes
        )
    }

    /// Counts the queue's drops not yet in the outbox's counters.
    private func writeQueueDrops() async {
        let dropped = pipeline.statistics.dropped
        let delta = queueDropsReported.withLock { reported in
            defer { reported = max(reported, dropped) }
            return dropped > reported ? dropped - reported : 0
        }
        guard delta > 0 else { return }
        _ = await store.run { $0.write([], queueDrops: delta) }
    }
}
