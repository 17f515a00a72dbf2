import TallyCore

/// The `outbox_diagnostics` event: what an outbox lost since its previous report, so that loss on
/// the device is visible in the server's store. Feature `tally`, which every registry knows.
enum OutboxDiagnostics {
    static let name = "outbox_diagnostics"
    static let feature = "tally"

    /// The report's envelope; its id is the one fixed when the report was decided.
    static func envelope(_ report: OutboxLedger.PendingReport, outboxID: String) -> EventEnvelope? {
        guard let id = EventID(report.eventID) else { return nil }
        let delta = report.delta
        let properties: [String: PropertyValue] = [
            "dropped_queue": .integer(Int64(clamping: delta.droppedQueue)),
            "dropped_caps": .integer(Int64(clamping: delta.droppedCaps)),
            "dropped_disk_full": .integer(Int64(clamping: delta.droppedDiskFull)),
            "corrupt_files": .integer(Int64(clamping: delta.corruptFiles)),
            "corrupt_events": .integer(Int64(clamping: delta.corruptEvents)),
            "dead_lettered_events": .integer(Int64(clamping: delta.deadLetteredEvents)),
            "dropped_by_hooks": .integer(Int64(clamping: delta.droppedByHooks)),
            "sampled_out": .integer(Int64(clamping: delta.sampledOut)),
            "outbox_id": .string(outboxID),
        ]
        let time = Timestamp(nanosecondsSinceEpoch: report.occurredAt)
        return EventEnvelope(
            eventID: id,
            name: name,
            feature: feature,
            properties: EventProperties(properties),
            occurredAt: time,
            receivedAt: time,
            anonymousID: outboxID
        )
    }
}
