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

    /// The losses a report carries, read back from its event (nil: not a report this outbox wrote).
    static func delta(of event: EventEnvelope) -> DiagnosticCounts? {
        guard event.name == name else { return nil }
        func count(_ key: String) -> UInt64 {
            if case .integer(let value) = event.properties.values[key], value > 0 { return UInt64(value) }
            return 0
        }
        var delta = DiagnosticCounts()
        delta.droppedQueue = count("dropped_queue")
        delta.droppedCaps = count("dropped_caps")
        delta.droppedDiskFull = count("dropped_disk_full")
        delta.corruptFiles = count("corrupt_files")
        delta.corruptEvents = count("corrupt_events")
        delta.deadLetteredEvents = count("dead_lettered_events")
        delta.droppedByHooks = count("dropped_by_hooks")
        delta.sampledOut = count("sampled_out")
        return delta
    }
}
