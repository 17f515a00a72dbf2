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
    /// The stages each event goes through before it is written (drops counted).
    var preparation = EventPreparation()
    /// Runs on the outbox's queue before each batch is written (the install state saved with it).
    var beforeWrite: (@Sendable () -> Void)?
    /// The directory's consent: when denied, batches are discarded, not written.
    var consent: ConsentStore?
    /// Called with the events discarded for want of consent.
    var discarded: (@Sendable (Int) -> Void)?

    func write(_ batch: [EventEnvelope]) async throws {
        let drops = queueDrops()
        if let consent, !consent.refresh().allowsTracking {
            // Opted out: nothing of these events reaches the disk, nor any count the server would see.
            discarded?(batch.count)
            return
        }
        // The pipeline's sink task: the stages (the app's hooks too) never run on a `track()` caller's thread.
        let prepared = preparation.prepare(batch)
        let beforeWrite = self.beforeWrite
        let consent = self.consent
        let outcome = await store.run { outbox -> Outbox.WriteOutcome? in
            // Checked again on the outbox's queue: an opt-out's purge, queued there too, is never
            // followed by a write of events tracked before it.
            if let consent, !consent.state.allowsTracking { return nil }
            beforeWrite?()
            return outbox.write(prepared.kept, queueDrops: drops, prepared: prepared.dropped)
        }
        guard let outcome else {
            discarded?(batch.count)
            return
        }
        if case .written(let waiting) = outcome { written(waiting) }
    }
}
