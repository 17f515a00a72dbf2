import TallyCore

/// What the outbox does to its files besides writing batches: leavings, reports, caps.
extension Outbox {
    func carryOut(_ settlements: [OutboxLedger.Settlement]) {
        guard !settlements.isEmpty else { return }
        for settlement in settlements {
            let path = layout.batch(settlement.name)
            switch settlement.disposition {
            case .delete: SystemFiles.remove(path)
            case .corrupt: try? SystemFiles.move(path, to: layout.corrupt + "/" + settlement.name)
            case .deadLetter: try? SystemFiles.move(path, to: layout.deadLetter + "/" + settlement.name)
            }
        }
        try? SystemFiles.syncDirectory(layout.batches)
    }

    /// Writes `report` as a batch file; false when it could not (it stays pending).
    @discardableResult
    func writeReport(
        _ report: OutboxLedger.PendingReport,
        outboxID: String,
        into entries: inout [SystemFiles.Entry]
    ) -> Bool {
        guard let event = OutboxDiagnostics.envelope(report, outboxID: outboxID) else { return true }
        let name = BatchName(diagnosticsSequence: report.sequence).description
        do {
            let line = event.ndjsonLine
            try SystemFiles.writeAtomically(
                line,
                to: layout.batch(name),
                directory: layout.batches,
                temporaryDirectory: layout.temporary
            )
            entries.append(SystemFiles.Entry(name: name, size: line.count, modified: Timestamp.now()))
            return true
        } catch {
            logger.error("outbox: cannot write the diagnostics report", metadata: ["error": "\(error)"])
            return false
        }
    }

    func enforceCaps(_ ledger: inout OutboxLedger, _ entries: inout [SystemFiles.Entry]) {
        let batches = entries.compactMap { entry -> OutboxCaps.Batch? in
            guard let batch = BatchName(entry.name), !batch.isDiagnostics else { return nil }
            return OutboxCaps.Batch(
                name: entry.name,
                events: batch.events,
                bytes: entry.size,
                writtenAt: entry.modified
            )
        }.sorted { $0.name < $1.name }
        let inFlight = Set(ledger.inFlight)
        // The waiting report's bytes count against the byte cap (it is on the disk too) but it is
        // never dropped: it says what the server is missing.
        let reportBytes = entries.reduce(0) { total, entry in
            let isReport = BatchName(entry.name)?.isDiagnostics == true && !inFlight.contains(entry.name)
            return isReport ? total + entry.size : total
        }
        let overflow = caps.overflow(batches, protected: inFlight, reservedBytes: reportBytes, now: Timestamp.now())
        guard !overflow.isEmpty else { return }
        for batch in overflow where ledger.settle(batch.name, as: .delete, reason: .droppedCaps) {
            run.withLock { $0.droppedCaps += UInt64(batch.events) }
        }
        let dropped = Set(overflow.map(\.name))
        entries.removeAll { dropped.contains($0.name) }
        logger.warning(
            "outbox over its caps: oldest batches dropped",
            metadata: ["tally.events": "\(overflow.reduce(0) { $0 + $1.events })"]
        )
    }

    static func waitingEvents(_ entries: [SystemFiles.Entry]) -> Int {
        entries.reduce(0) { $0 + (BatchName($1.name)?.events ?? 0) }
    }
}
