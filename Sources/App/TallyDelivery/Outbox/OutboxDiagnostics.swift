import TallyCore

/// The `outbox_diagnostics` event: what an outbox lost since its previous report, so that loss on
/// the device is visible in the server's store. Feature `tally`, which every registry knows.
enum OutboxDiagnostics {
    static let name = "outbox_diagnostics"
    static let feature = "tally"

    /// The report's counters: each property and the ``DiagnosticCounts`` field it carries (one
    /// list for writing a report and reading a refused one back).
    private static let counters: [(key: String, field: any WritableKeyPath<DiagnosticCounts, UInt64> & Sendable)] = [
        ("dropped_queue", \.droppedQueue),
        ("dropped_caps", \.droppedCaps),
        ("dropped_disk_full", \.droppedDiskFull),
        ("corrupt_files", \.corruptFiles),
        ("corrupt_events", \.corruptEvents),
        ("dead_lettered_events", \.deadLetteredEvents),
        ("dropped_by_hooks", \.droppedByHooks),
        ("sampled_out", \.sampledOut),
    ]

    /// The report's envelope; its id is the one fixed when the report was decided.
    static func envelope(_ report: OutboxLedger.PendingReport, outboxID: String) -> EventEnvelope? {
        guard let id = EventID(report.eventID) else { return nil }
        var properties: [String: PropertyValue] = ["outbox_id": .string(outboxID)]
        for (key, field) in counters { properties[key] = .integer(Int64(clamping: report.delta[keyPath: field])) }
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
        var delta = DiagnosticCounts()
        for (key, field) in counters {
            if case .integer(let value) = event.properties.values[key], value > 0 {
                delta[keyPath: field] = UInt64(value)
            }
        }
        return delta
    }
}
