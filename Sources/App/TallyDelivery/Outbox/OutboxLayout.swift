/// Where an outbox keeps its files, under one directory (docs/delivery.md describes them):
///
/// - `batches/`: one file per written batch, NDJSON envelopes, named ``BatchName`` (oldest first);
/// - `tmp/`: files being written, renamed into `batches/` once whole and fsynced;
/// - `corrupt/`: batch files that failed to parse, moved aside;
/// - `dead-letter/`: batches the collector refused for good;
/// - `state.json`: the directory's lifetime counters (``OutboxLedger``), under `state.lock`;
/// - `upload.lock`: held while a request is in flight, so one request per directory at a time.
package struct OutboxLayout: Sendable, Hashable {
    /// The outbox directory.
    package let root: String

    package init(root: String) {
        self.root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
    }

    package var batches: String { root + "/batches" }
    package var temporary: String { root + "/tmp" }
    package var corrupt: String { root + "/corrupt" }
    package var deadLetter: String { root + "/dead-letter" }
    package var state: String { root + "/state.json" }
    package var stateLock: String { root + "/state.lock" }
    package var uploadLock: String { root + "/upload.lock" }

    package func batch(_ name: String) -> String { batches + "/" + name }
}

/// A batch file's name: `SEQUENCE-COUNT.ndjson` (a 16-digit sequence, so names sort oldest first,
/// and the number of events the file holds, so a file cut short at a line boundary is still
/// recognised), or `SEQUENCE-diagnostics.ndjson` for an `outbox_diagnostics` report.
package struct BatchName: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The directory's write order, from ``OutboxLedger/lastSequence``.
    package var sequence: UInt64
    /// Events in the file (0 for a diagnostics report, which no event counter includes).
    package var events: Int
    /// Whether the file is an `outbox_diagnostics` report.
    package var isDiagnostics: Bool

    package init(sequence: UInt64, events: Int) {
        self.sequence = sequence
        self.events = events
        isDiagnostics = false
    }

    package init(diagnosticsSequence sequence: UInt64) {
        self.sequence = sequence
        events = 0
        isDiagnostics = true
    }

    /// Parses a file name; nil for anything the outbox did not write (such a file is moved to `corrupt/`).
    package init?(_ name: String) {
        guard name.hasSuffix(".ndjson") else { return nil }
        let stem = name.dropLast(".ndjson".count)
        let parts = stem.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 16, let sequence = UInt64(parts[0]) else { return nil }
        self.sequence = sequence
        if parts[1] == "diagnostics" {
            events = 0
            isDiagnostics = true
        } else {
            guard let events = Int(parts[1]), events > 0, String(events) == parts[1] else { return nil }
            self.events = events
            isDiagnostics = false
        }
    }

    package var description: String {
        let digits = String(sequence)
        let padded = String(repeating: "0", count: max(0, 16 - digits.count)) + digits
        return padded + (isDiagnostics ? "-diagnostics" : "-\(events)") + ".ndjson"
    }

    package static func < (lhs: BatchName, rhs: BatchName) -> Bool {
        lhs.sequence < rhs.sequence
    }
}
