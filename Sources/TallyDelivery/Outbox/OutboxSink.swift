import TallyCore
import TallyPipeline

/// The pipeline's sink in an app: each batch becomes one batch file of the outbox, written whole
/// and atomically. It never throws: a batch that cannot be written (a full disk) is counted as
/// dropped, so the pipeline's memory stays bounded and writing resumes with the next batch.
struct OutboxSink: EventSink {
    let name = "outbox"
    let store: OutboxStore
    /// The queue's drops since the last call (counted with the next write).
    let queueDrops: @Sendable () -> UInt64
    /// Called with the events waiting after each write (the uploader's count trigger).
    let written: @Sendable (Int) -> Void

    func write(_ batch: [EventEnvelope]) async throws {
        let drops = queueDrops()
        let outcome = await store.run { $0.write(batch, queueDrops: drops) }
        if case .written(let waiting) = outcome { written(waiting) }
    }
}
