/// Which waiting batch files the next request carries: what ``Outbox/claim(maxEvents:)`` marks in
/// flight and reads. Pure, so that it can be held against ``UploadRequest`` without a disk.
///
/// The rules are the request's: reports first (each is one event on the wire), then the oldest
/// event batches while each fits whole in the room left; the first event batch goes even when it
/// is larger than the room (it is split on disk, or sent in parts), unless a report already took
/// some of it. Claiming more than the request then carried cost a whole read and decode of a batch
/// that stayed behind, and read again by the next cycle: a report, or a small batch written just
/// before a full one, made every full batch after it be read twice.
enum ClaimSelection {
    /// The names of `waiting` a request of at most `maxEvents` events carries, in request order.
    static func select(_ waiting: [BatchName], maxEvents: Int) -> [BatchName] {
        let ordered = waiting.sorted { $0.isDiagnostics != $1.isDiagnostics ? $0.isDiagnostics : $0 < $1 }
        var selected: [BatchName] = []
        var events = 0
        for batch in ordered {
            if batch.isDiagnostics {
                // Reports ride along whatever the limit (they are small and say what the server is missing).
                selected.append(batch)
                events += 1
                continue
            }
            let room = maxEvents - events
            guard room > 0 else { break }
            if events > 0 && batch.events > room { break }
            selected.append(batch)
            events += batch.events
        }
        return selected
    }
}
