import TallyCore

/// The events of one request: the claimed batches in order, up to `limit` events, the first batch
/// resuming after the events a smaller request already delivered.
struct UploadRequest {
    var events: [EventEnvelope] = []
    /// Batches whose every event is in this request (or an earlier one).
    var complete: [String] = []
    /// Batches only partly covered: the events acknowledged once this request succeeds.
    var partial: [(name: String, count: Int)] = []

    init(_ batches: [(claim: Outbox.Claim, events: [EventEnvelope])], acknowledged: [String: Int], limit: Int) {
        for (claim, batchEvents) in batches {
            let start = min(acknowledged[claim.name] ?? 0, batchEvents.count)
            let room = limit - events.count
            // Reports ride along whatever the limit; event batches stop at it (at least one event).
            if claim.batch?.isDiagnostics == true {
                events += batchEvents
                complete.append(claim.name)
                continue
            }
            guard room > 0 else { break }
            // A batch goes whole; only the first may go in parts (when it could not be split on disk).
            if !events.isEmpty && batchEvents.count - start > room { break }
            let end = min(batchEvents.count, start + room)
            events += batchEvents[start..<end]
            if end == batchEvents.count {
                complete.append(claim.name)
            } else {
                partial.append((claim.name, end))
                break
            }
        }
    }
}
