package import TallyCore

/// The pipeline's in-memory queue, made before the pipeline, so that what the pipeline feeds can
/// hold it too: the app's outbox reads its drop count and its identity records enter through it,
/// with no reference back to the pipeline itself.
package struct PipelineQueue: Sendable {
    let buffer: EventBuffer

    /// A queue with `configuration`'s capacity, batch size and overflow policy.
    package init(configuration: PipelineConfiguration) {
        buffer = EventBuffer(
            capacity: configuration.queueCapacity,
            maxBatchSize: configuration.maxBatchSize,
            policy: configuration.overflowPolicy
        )
    }

    /// Hands one event over without waiting (see ``EventPipeline/offer(_:)``).
    @discardableResult
    package func offer(_ event: EventEnvelope) -> Bool { buffer.offer(event) }

    /// Events dropped so far under the overflow policy.
    package var dropped: UInt64 { buffer.counts.dropped }
}
