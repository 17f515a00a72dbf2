/// The lifetime counters of an outbox directory (its `state.json`), and the bookkeeping that
/// keeps them exact across `kill -9` and across processes sharing the directory.
///
/// Pure logic, no I/O: ``Outbox`` reads it under the state lock, lets it decide, performs what it
/// says and writes it back. The protocol that makes the counts exact:
///
/// - a batch file is renamed into `batches/` *before* the ledger counts it: a file whose sequence
///   is above ``lastSequence`` was written but not yet counted, and ``reconcile(listing:)`` counts it;
/// - a file leaves `batches/` (uploaded, dropped, corrupt, dead-lettered, purged) *after* the ledger
///   counted its leaving and recorded it in ``settled``: a settled file still present is removed
///   (or moved) again by ``reconcile(listing:)``, never counted twice;
/// - a diagnostics report is recorded in ``pendingReport`` (its event id fixed) before its file is
///   written: a report whose file is missing is written again with the same id.
package struct OutboxLedger: Sendable, Hashable, Codable {
    /// What happens to a batch file that leaves `batches/`.
    package enum Disposition: String, Sendable, Hashable, Codable {
        case delete
        case corrupt
        case deadLetter = "dead_letter"
    }

    /// A file whose leaving is counted; the file operation may not have happened yet.
    package struct Settlement: Sendable, Hashable, Codable {
        package var name: String
        package var disposition: Disposition
    }

    /// A diagnostics report decided but perhaps not yet in `batches/`.
    package struct PendingReport: Sendable, Hashable, Codable {
        package var sequence: UInt64
        /// The report's event id (canonical UUID text): fixed once, so a re-send deduplicates.
        package var eventID: String
        /// When the report was made, nanoseconds since the epoch.
        package var occurredAt: Int64
        package var delta: DiagnosticCounts

        private enum CodingKeys: String, CodingKey {
            case sequence
            case eventID = "event_id"
            case occurredAt = "occurred_at"
            case delta
        }
    }

    /// A batch being split into smaller files (a 413 made requests smaller than one batch), so
    /// that each part is acknowledged and deleted on its own.
    package struct PendingSplit: Sendable, Hashable, Codable {
        package var original: String
        package var parts: [String]
    }

    /// Random per directory: the `outbox_id` of its reports.
    package var outboxID: String
    /// The highest sequence counted (or reserved for a report).
    package var lastSequence: UInt64 = 0
    /// Events written to `batches/`.
    package var written: UInt64 = 0
    /// Events the collector acknowledged (2xx).
    package var uploaded: UInt64 = 0
    /// Events removed by ``TallyDelivery/purge()``.
    package var purged: UInt64 = 0
    /// Losses, cumulative.
    package var counts = DiagnosticCounts()
    /// ``counts`` as of the last report written to the outbox.
    package var reported = DiagnosticCounts()
    package var pendingReport: PendingReport?
    package var pendingSplit: PendingSplit?
    package var settled: [Settlement] = []
    /// Files of the request in flight: cap drops leave them alone.
    package var inFlight: [String] = []

    package init(outboxID: String) {
        self.outboxID = outboxID
    }

    // state.json's keys: snake_case, spelled out (a key strategy would turn `outbox_id` into `outboxId`).
    private enum CodingKeys: String, CodingKey {
        case outboxID = "outbox_id"
        case lastSequence = "last_sequence"
        case written, uploaded, purged, counts, reported
        case pendingReport = "pending_report"
        case pendingSplit = "pending_split"
        case settled
        case inFlight = "in_flight"
    }

    /// What ``reconcile(listing:)`` found to do.
    package struct Repair: Sendable, Hashable {
        /// Parts of a split that did not finish: delete them (the original batch stays).
        package var abandonedParts: [String] = []
        /// Settled files still present: remove or move them again.
        package var redo: [Settlement] = []
        /// A pending report whose file is missing: write it (same id).
        package var rewriteReport: PendingReport?
        /// Whether the ledger changed and must be written back.
        package var changed = false
    }

    /// Brings the ledger in line with `listing` (the names in `batches/`) after a crash or another
    /// process's work: counts files written but not counted, finishes settled leavings, and
    /// notices a pending report.
    package mutating func reconcile(listing: [String]) -> Repair {
        var repair = Repair()
        let present = Set(listing)
        repair.redo = settled.filter { present.contains($0.name) }
        let settledNames = Set(settled.map(\.name))
        if !settled.isEmpty {
            settled = []
            repair.changed = true
        }
        let newcomers = listing.compactMap(BatchName.init).filter { $0.sequence > lastSequence }
        for name in newcomers where !name.isDiagnostics && !settledNames.contains(name.description) {
            written += UInt64(name.events)
        }
        if let highest = newcomers.map(\.sequence).max() {
            lastSequence = highest
            repair.changed = true
        }
        if let split = pendingSplit {
            // Its parts' sequences were reserved before they were written: never counted as new.
            let parts = split.parts.filter { present.contains($0) }
            if present.contains(split.original) {
                if parts.count == split.parts.count {
                    settle(split.original, as: .delete, reason: .split)
                    repair.redo.append(Settlement(name: split.original, disposition: .delete))
                    settled.removeAll { $0.name == split.original }
                } else {
                    repair.abandonedParts = parts
                }
            }
            pendingSplit = nil
            repair.changed = true
        }
        if let report = pendingReport {
            if present.contains(BatchName(diagnosticsSequence: report.sequence).description) {
                pendingReport = nil
                repair.changed = true
            } else {
                repair.rewriteReport = report
            }
        }
        return repair
    }

    /// Counts `name` leaving `batches/` as `disposition` and records it as settled. Returns false
    /// (and counts nothing) when it was settled already.
    @discardableResult
    package mutating func settle(_ name: String, as disposition: Disposition, reason: LeaveReason) -> Bool {
        guard !settled.contains(where: { $0.name == name }) else { return false }
        let events = UInt64(BatchName(name)?.events ?? 0)
        switch reason {
        case .uploaded: uploaded += events
        case .droppedCaps: counts.droppedCaps += events
        case .corrupt:
            counts.corruptFiles += 1
            counts.corruptEvents += events
        case .deadLettered: counts.deadLetteredEvents += events
        case .purged: purged += events
        case .split: break  // its events are in the parts
        }
        settled.append(Settlement(name: name, disposition: disposition))
        return true
    }

    /// Why a file leaves `batches/`.
    package enum LeaveReason: Sendable, Hashable {
        case uploaded, droppedCaps, corrupt, deadLettered, purged
        /// Replaced by its parts: no counter changes.
        case split
    }

    /// Reserves the next sequence and records a report of what was lost since the last one; nil
    /// when nothing new was lost or a report is still pending.
    package mutating func makeReport(eventID: String, now: Int64) -> PendingReport? {
        guard pendingReport == nil else { return nil }
        let delta = counts.since(reported)
        guard !delta.isZero else { return nil }
        lastSequence += 1
        let report = PendingReport(sequence: lastSequence, eventID: eventID, occurredAt: now, delta: delta)
        reported = counts
        pendingReport = report
        return report
    }

    /// Events waiting, by the ledger alone: what was written and has not left.
    package var waitingByCounts: UInt64 {
        let left = uploaded + counts.droppedCaps + counts.corruptEvents + counts.deadLetteredEvents + purged
        return written > left ? written - left : 0
    }
}
