package import Logging
package import TallyCore

/// An outbox directory and every file operation on it (``OutboxLayout`` says which files).
///
/// Not thread-safe on purpose: its owner calls it from one serial queue (``OutboxStore``), so the
/// system calls stay off Swift's cooperative threads. Several `Outbox`es, in one process or many,
/// may share a directory: every change of the counters happens under `state.lock` (`flock`),
/// after ``OutboxLedger/reconcile(listing:)`` caught up with what the others (or a crash) did.
package final class Outbox: @unchecked Sendable {
    /// What one write did.
    package enum WriteOutcome: Sendable, Hashable {
        /// The batch is in `batches/`; `waiting` events are in the outbox now.
        case written(waiting: Int)
        /// It could not be written (full disk, or another error): its events are counted as dropped.
        case dropped(DeliveryError)
        /// Nothing to write.
        case nothing
    }

    /// A batch file handed to the uploader.
    package struct Claim: Sendable, Hashable {
        package var name: String
        package var batch: BatchName?
    }

    package let layout: OutboxLayout
    package let caps: OutboxCaps
    /// Held while a request is in flight (by ``Uploader``).
    package let uploadLock: FileLock
    /// `state.json` and `state.lock`.
    private let state: LedgerFile
    let logger: Logger
    private let decoder = EnvelopeDecoder()
    /// Drops not yet in the ledger (it could not be saved, or nothing else changed yet).
    private var unsavedDrops = DiagnosticCounts()
    /// This process's counters (read from any thread).
    package let run = Locked(RunCounters())
    private var ids = UUIDv7Generator()
    private var lastDiskFullLog: Int64 = 0
    /// `batches/` as last listed, so that only new files are `stat`ed.
    private var listedBatches: [String: SystemFiles.Entry] = [:]
    /// The collector refused a report for good (a wrong write key: 401): no new one is made until
    /// it acknowledges a request. A report made at once refused at once, hundreds a second into
    /// `dead-letter/`. In memory: a new process tries one report again.
    private var reportRefused = false

    /// This process's counters of what it did to the directory.
    package struct RunCounters: Sendable, Hashable {
        package var written: UInt64 = 0
        package var uploaded: UInt64 = 0
        package var droppedDiskFull: UInt64 = 0
        package var deadLettered: UInt64 = 0
        package var corruptEvents: UInt64 = 0
        package var droppedCaps: UInt64 = 0
        package var droppedByHooks: UInt64 = 0
        package var sampledOut: UInt64 = 0
    }

    /// Opens (creating) the outbox at `directory` and reconciles its counters.
    package init(directory: String, caps: OutboxCaps, logger: Logger) throws(DeliveryError) {
        layout = OutboxLayout(root: directory)
        self.caps = caps
        self.logger = logger
        for path in [layout.root, layout.batches, layout.temporary, layout.corrupt, layout.deadLetter] {
            do {
                try Directory.create(path)
            } catch {
                throw DeliveryError(.outboxUnavailable, "\(error)", errno: error.errno)
            }
        }
        state = LedgerFile(layout: layout, lock: try FileLock(path: layout.stateLock), logger: logger)
        uploadLock = try FileLock(path: layout.uploadLock)
        removeStaleTemporaryFiles()
        state.makeReserve()
        withLedger { _, _ in }
    }

    // MARK: Writing

    /// Writes `events` as one batch file (atomically), adds `queueDrops` and the preparation
    /// chain's drops (`prepared`) to the counts, then drops the oldest batches past the caps.
    package func write(
        _ events: [EventEnvelope],
        queueDrops: UInt64 = 0,
        prepared: DiagnosticCounts = DiagnosticCounts()
    ) -> WriteOutcome {
        unsavedDrops.droppedQueue += queueDrops
        let preparation = prepared.preparationDrops
        if !preparation.isZero {
            unsavedDrops.add(preparation)
            run.withLock {
                $0.droppedByHooks += preparation.droppedByHooks
                $0.sampledOut += preparation.sampledOut
            }
        }
        guard !events.isEmpty else {
            if queueDrops > 0 || !preparation.isZero { withLedger { _, _ in } }
            return .nothing
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(events.count * 320)
        for event in events { event.appendNDJSON(to: &bytes) }
        let temporary: String
        do {
            temporary = try SystemFiles.writeTemporary(bytes, temporaryDirectory: layout.temporary)
        } catch {
            return dropUnwritten(events.count, error)
        }
        let outcome = withLedger(countingOnly: true) { ledger, entries -> WriteOutcome in
            let name = BatchName(sequence: ledger.lastSequence + 1, events: events.count)
            do throws(DeliveryError) {
                try SystemFiles.move(temporary, to: layout.batch(name.description))
            } catch {
                return .dropped(error)
            }
            try? SystemFiles.syncDirectory(layout.batches)
            ledger.lastSequence = name.sequence
            ledger.written += UInt64(events.count)
            run.withLock { $0.written += UInt64(events.count) }
            entries.append(
                SystemFiles.Entry(
                    name: name.description,
                    size: bytes.count,
                    modified: Timestamp.now()
                )
            )
            enforceCaps(&ledger, &entries)
            return .written(waiting: Self.waitingEvents(entries))
        }
        if case .dropped(let error) = outcome { return dropUnwritten(events.count, error) }
        return outcome
    }

    private func dropUnwritten(_ count: Int, _ error: DeliveryError) -> WriteOutcome {
        unsavedDrops.droppedDiskFull += UInt64(count)
        run.withLock { $0.droppedDiskFull += UInt64(count) }
        let now = Timestamp.now().secondsSinceEpoch
        if now - lastDiskFullLog >= 10 {
            lastDiskFullLog = now
            logger.error(
                "outbox: cannot write a batch, its events are dropped",
                metadata: ["tally.events": "\(count)", "error": "\(error)"]
            )
        }
        return .dropped(error)
    }

    // MARK: Uploading

    /// Under the state lock: drops what is past the caps, writes a diagnostics report if anything
    /// was lost since the last one and no report is waiting, and returns what the next request of
    /// at most `maxEvents` events carries (``ClaimSelection``: reports first, then the oldest batches
    /// that fit whole, at least one), marked in flight. Empty when nothing waits.
    package func claim(maxEvents: Int) -> [Claim] {
        withLedger { ledger, entries in
            enforceCaps(&ledger, &entries)
            let now = Timestamp.now()
            // One report waits at a time: losses since it are carried by the next, made once it has
            // left. A report per upload attempt piled up without bound on a device offline for days.
            let reportWaiting = entries.contains { BatchName($0.name)?.isDiagnostics == true }
            if !reportWaiting, !reportRefused,
                let report = ledger.makeReport(eventID: ids.next(at: now).description, now: now.nanosecondsSinceEpoch)
            {
                if state.save(ledger) {
                    // Written now, or by the next reconcile (the report stays pending until then).
                    if writeReport(report, outboxID: ledger.outboxID, into: &entries) { ledger.pendingReport = nil }
                } else {
                    ledger.pendingReport = nil
                    ledger.reported = ledger.reported.since(report.delta)
                    ledger.lastSequence -= 1
                }
            }
            var waiting: [BatchName] = []
            for entry in entries {
                guard let batch = BatchName(entry.name) else {
                    // Not a name the outbox writes: moved aside as a corrupt file.
                    ledger.settle(entry.name, as: .corrupt, reason: .corrupt)
                    continue
                }
                waiting.append(batch)
            }
            // Only what the request will carry: a batch claimed and then left out was read for nothing.
            let claims = ClaimSelection.select(waiting, maxEvents: maxEvents).map {
                Claim(name: $0.description, batch: $0)
            }
            ledger.inFlight = claims.map(\.name)
            return claims
        }
    }

    /// The envelopes of a claimed batch, or nil when it is corrupt (unreadable, not NDJSON
    /// envelopes with ids, or fewer or more events than its name says).
    package func read(_ claim: Claim) -> [EventEnvelope]? {
        guard let batch = claim.batch, let bytes = SystemFiles.read(layout.batch(claim.name)) else { return nil }
        var events: [EventEnvelope] = []
        events.reserveCapacity(batch.events)
        let complete = bytes.withUnsafeBufferPointer { buffer -> Bool in
            var start = 0
            while start < buffer.count {
                // memchr: a byte-by-byte scan through `Slice` took half of an upload cycle's CPU in a
                // debug build (the demo's), and a backlog at the caps outlasted the flush timeout.
                guard let end = firstIndex(of: UInt8(ascii: "\n"), in: buffer, from: start) else { return false }
                guard end > start else { return false }
                do {
                    let line = UnsafeBufferPointer(rebasing: buffer[start..<end])
                    events.append(try decoder.decode(line, fallbackID: nil))
                } catch {
                    return false
                }
                start = end + 1
            }
            return true
        }
        guard complete, events.count == (batch.isDiagnostics ? 1 : batch.events) else { return nil }
        return events
    }

    /// Replaces a claimed batch by files of at most `limit` events each (newer sequences), so that
    /// a request smaller than the batch (after a 413) deletes what it delivered: a crash then
    /// re-sends no acknowledged event. Returns the parts' claims, marked in flight, or nil when the
    /// split could not be made (the batch stays whole).
    package func split(_ claim: Claim, events: [EventEnvelope], limit: Int) -> [(
        claim: Claim, events: [EventEnvelope]
    )]? {
        let chunks = stride(from: 0, to: events.count, by: max(1, limit)).map {
            Array(events[$0..<min(events.count, $0 + max(1, limit))])
        }
        guard chunks.count > 1 else { return nil }
        return withLedger { ledger, entries in
            guard entries.contains(where: { $0.name == claim.name }) else { return nil }
            let names = chunks.enumerated().map {
                BatchName(sequence: ledger.lastSequence + 1 + UInt64($0.offset), events: $0.element.count)
            }
            ledger.lastSequence += UInt64(chunks.count)
            ledger.pendingSplit = OutboxLedger.PendingSplit(original: claim.name, parts: names.map(\.description))
            guard state.save(ledger) else { return nil }
            for (name, chunk) in zip(names, chunks) {
                var bytes: [UInt8] = []
                for event in chunk { event.appendNDJSON(to: &bytes) }
                do {
                    let temporary = try SystemFiles.writeTemporary(bytes, temporaryDirectory: layout.temporary)
                    try SystemFiles.move(temporary, to: layout.batch(name.description))
                } catch {
                    // The next reconcile removes the parts written so far; the batch stays whole.
                    return nil
                }
            }
            try? SystemFiles.syncDirectory(layout.batches)
            ledger.pendingSplit = nil
            ledger.settle(claim.name, as: .delete, reason: .split)
            ledger.inFlight = names.map(\.description)
            return zip(names, chunks).map { (Claim(name: $0.description, batch: $0), $1) }
        }
    }

    /// Records what became of claimed batches (nil or absent: still waiting, and under the caps
    /// again) and clears the in-flight mark. Returns the events counted for each reason (a batch that
    /// meanwhile left counts nothing).
    @discardableResult
    package func finish(_ outcomes: [(name: String, reason: OutboxLedger.LeaveReason?)]) -> [OutboxLedger
        .LeaveReason: Int]
    {
        withLedger { ledger, entries in
            var counted: [OutboxLedger.LeaveReason: Int] = [:]
            let present = Set(entries.map(\.name))
            for (name, reason) in outcomes {
                guard let reason, present.contains(name) else { continue }
                let disposition: OutboxLedger.Disposition =
                    switch reason {
                    case .corrupt: .corrupt
                    case .deadLettered: .deadLetter
                    default: .delete
                    }
                // A report the collector refused for good never reached the server: its losses go
                // into the next report again instead of leaving with it, made once a request is
                // acknowledged (``reportRefused``).
                let refusedReport =
                    reason == .deadLettered && BatchName(name)?.isDiagnostics == true
                    ? read(Claim(name: name, batch: BatchName(name)))?.first.flatMap(OutboxDiagnostics.delta(of:))
                    : nil
                if reason == .uploaded { reportRefused = false }
                if ledger.settle(name, as: disposition, reason: reason) {
                    if let refusedReport {
                        ledger.reported = ledger.reported.since(refusedReport)
                        reportRefused = true
                    }
                    let events = BatchName(name)?.events ?? 0
                    counted[reason, default: 0] += events
                    run.withLock { run in
                        switch reason {
                        case .uploaded: run.uploaded += UInt64(events)
                        case .deadLettered: run.deadLettered += UInt64(events)
                        case .corrupt: run.corruptEvents += UInt64(events)
                        default: break
                        }
                    }
                }
            }
            ledger.inFlight = []
            // Batches a failed request brings back were not counted under the caps while in
            // flight: checked now, so that the outbox is within them whenever nothing is in flight.
            enforceCaps(&ledger, &entries)
            return counted
        }
    }

    // MARK: State

    /// The directory's counters and what waits in it.
    package func snapshot() -> OutboxState {
        withLedger { ledger, entries in
            let batches = entries.compactMap { entry in BatchName(entry.name).map { (entry, $0) } }
                .filter { !$0.1.isDiagnostics }
            let oldest = batches.map(\.0.modified).min()
            return OutboxState(
                outboxID: ledger.outboxID,
                waitingEvents: batches.reduce(0) { $0 + $1.1.events },
                waitingBatches: batches.count,
                waitingBytes: batches.reduce(0) { $0 + $1.0.size },
                oldestAge: oldest.map { .seconds(max(0, Timestamp.now().secondsSinceEpoch - $0.secondsSinceEpoch)) },
                written: ledger.written,
                uploaded: ledger.uploaded,
                purged: ledger.purged,
                losses: ledger.counts
            )
        }
    }

    /// Removes every waiting batch (counted as purged, not as a loss) and any report not yet sent.
    package func purge() {
        withLedger { ledger, entries in
            for entry in entries {
                if let batch = BatchName(entry.name) {
                    ledger.settle(entry.name, as: .delete, reason: batch.isDiagnostics ? .uploaded : .purged)
                } else {
                    ledger.settle(entry.name, as: .corrupt, reason: .corrupt)
                }
            }
            ledger.reported = ledger.counts
        }
    }

    // MARK: The ledger

    /// Runs `body` under the state lock with the reconciled ledger and the listing of `batches/`;
    /// saves the ledger if it changed (with `countingOnly`, only if files leave or losses were
    /// counted), and only then carries out the leavings it settled.
    @discardableResult
    private func withLedger<T>(
        countingOnly: Bool = false,
        _ body: (inout OutboxLedger, inout [SystemFiles.Entry]) -> T
    ) -> T {
        state.lock.lock()
        defer { state.lock.unlock() }
        let loaded = state.load()
        var ledger = loaded
        var entries = SystemFiles.list(layout.batches, known: &listedBatches)
        let repair = ledger.reconcile(listing: entries.map(\.name))
        carryOut(repair.redo + repair.abandonedParts.map { .init(name: $0, disposition: .delete) })
        let redone = Set(repair.redo.map(\.name) + repair.abandonedParts)
        entries.removeAll { redone.contains($0.name) }
        if let report = repair.rewriteReport, writeReport(report, outboxID: ledger.outboxID, into: &entries) {
            ledger.pendingReport = nil
        }
        let drops = unsavedDrops
        ledger.counts.add(drops)
        let result = body(&ledger, &entries)
        // A new batch alone needs no save: its name says what the next reconcile counts (so a
        // write costs the batch's fsyncs only). Anything that removes files or counts a loss does.
        let mustSave = !countingOnly || !ledger.settled.isEmpty || !drops.isZero
        if mustSave && (ledger != loaded || !drops.isZero) {
            if state.save(ledger) {
                unsavedDrops = unsavedDrops.since(drops)
                carryOut(ledger.settled)
            }
        }
        state.makeReserve()
        return result
    }

    /// Temporary files older than an hour were left by a crash (a live writer renames within a second).
    private func removeStaleTemporaryFiles() {
        let cutoff = Timestamp.now().secondsSinceEpoch - 3600
        for entry in SystemFiles.list(layout.temporary)
        where entry.modified.secondsSinceEpoch < cutoff && entry.name != "reserve" {
            SystemFiles.remove(layout.temporary + "/" + entry.name)
        }
    }

}
