import TallyCore
import Testing

@testable import TallyDelivery

/// The outbox's accounting without I/O: reconcile after crashes, settlements, reports, caps.
@Suite("Outbox ledger")
struct OutboxLedgerTests {
    @Test("batch names sort oldest first and say their event count; foreign names are refused")
    func names() {
        let name = BatchName(sequence: 42, events: 100)
        #expect(name.description == "0000000000000042-100.ndjson")
        #expect(BatchName(name.description) == name)
        #expect(BatchName("0000000000000043-diagnostics.ndjson")?.isDiagnostics == true)
        for foreign in ["garbage", "42-100.ndjson", "0000000000000042-0.ndjson", "0000000000000042-x.ndjson", ""] {
            #expect(BatchName(foreign) == nil, "\(foreign)")
        }
    }

    @Test("a file renamed in but not counted (kill -9 between rename and state) is counted once at reconcile")
    func uncountedFile() {
        var ledger = OutboxLedger(outboxID: "o")
        ledger.lastSequence = 2
        ledger.written = 30
        // Listed in any order (readdir's): both newcomers count.
        let listing = ["0000000000000004-5.ndjson", "0000000000000002-10.ndjson", "0000000000000003-7.ndjson"]
        let repair = ledger.reconcile(listing: listing)
        #expect(repair.changed)
        #expect(ledger.written == 42 && ledger.lastSequence == 4)
        #expect(!ledger.reconcile(listing: listing).changed)
        #expect(ledger.written == 42)
    }

    @Test("a settled file still present (kill -9 between state and unlink) is removed again, counted once")
    func settledRedo() {
        var ledger = OutboxLedger(outboxID: "o")
        ledger.written = 10
        ledger.lastSequence = 1
        let name = "0000000000000001-10.ndjson"
        let first = ledger.settle(name, as: .delete, reason: .uploaded)
        let again = ledger.settle(name, as: .delete, reason: .uploaded)
        #expect(first && !again)
        #expect(ledger.uploaded == 10)
        let repair = ledger.reconcile(listing: [name])
        #expect(repair.redo == [OutboxLedger.Settlement(name: name, disposition: .delete)])
        #expect(ledger.uploaded == 10 && ledger.settled.isEmpty && ledger.waitingByCounts == 0)
    }

    @Test("every way out is counted: uploaded, caps, corrupt, dead letter, purge")
    func leavings() {
        var ledger = OutboxLedger(outboxID: "o")
        _ = ledger.reconcile(listing: (1...5).map { BatchName(sequence: UInt64($0), events: $0).description })
        #expect(ledger.written == 15)
        ledger.settle(BatchName(sequence: 1, events: 1).description, as: .delete, reason: .uploaded)
        ledger.settle(BatchName(sequence: 2, events: 2).description, as: .delete, reason: .droppedCaps)
        ledger.settle(BatchName(sequence: 3, events: 3).description, as: .corrupt, reason: .corrupt)
        ledger.settle(BatchName(sequence: 4, events: 4).description, as: .deadLetter, reason: .deadLettered)
        #expect(ledger.waitingByCounts == 5)
        ledger.settle(BatchName(sequence: 5, events: 5).description, as: .delete, reason: .purged)
        #expect(ledger.waitingByCounts == 0)
        #expect(ledger.counts.droppedCaps == 2 && ledger.counts.corruptFiles == 1 && ledger.counts.corruptEvents == 3)
        #expect(ledger.counts.deadLetteredEvents == 4 && ledger.uploaded == 1 && ledger.purged == 5)
    }

    @Test("a report carries the losses since the previous one, once; a missing report file is rewritten")
    func reports() throws {
        var ledger = OutboxLedger(outboxID: "o")
        #expect(ledger.makeReport(eventID: "a", now: 1) == nil)
        ledger.counts.droppedQueue = 3
        ledger.counts.deadLetteredEvents = 2
        let made = ledger.makeReport(eventID: "a", now: 1)
        let report = try #require(made)
        #expect(report.delta.droppedQueue == 3 && report.delta.deadLetteredEvents == 2 && report.sequence == 1)
        #expect(ledger.makeReport(eventID: "b", now: 2) == nil, "one pending report at a time")
        // The file never made it (a crash): reconcile asks for it again, with the same id.
        #expect(ledger.reconcile(listing: []).rewriteReport == report)
        _ = ledger.reconcile(listing: [BatchName(diagnosticsSequence: 1).description])
        #expect(ledger.pendingReport == nil)
        ledger.counts.droppedCaps = 4
        let nextReport = ledger.makeReport(eventID: "c", now: 3)
        let next = try #require(nextReport)
        #expect(next.delta.droppedCaps == 4 && next.delta.droppedQueue == 0 && next.sequence == 2)
    }

    @Test("caps drop the oldest batches until bytes, events and age are within them; in-flight ones stay, uncounted")
    func caps() {
        let batches = (1...4).map {
            OutboxCaps.Batch(
                name: "b\($0)",
                events: 10,
                bytes: 1_000,
                writtenAt: Timestamp(secondsSinceEpoch: 1_000 + Int64($0))
            )
        }
        let now = Timestamp(secondsSinceEpoch: 1_010)
        let byEvents = OutboxCaps(maxBytes: 1 << 30, maxEvents: 25, maxAge: .seconds(3600))
        #expect(byEvents.overflow(batches, protected: [], now: now).map(\.name) == ["b1", "b2"])
        let byBytes = OutboxCaps(maxBytes: 3_000, maxEvents: 1 << 30, maxAge: .seconds(3600))
        #expect(byBytes.overflow(batches, protected: [], now: now).map(\.name) == ["b1"])
        #expect(byBytes.overflow(batches, protected: ["b1"], now: now).isEmpty)
        let tighter = OutboxCaps(maxBytes: 1 << 30, maxEvents: 15, maxAge: .seconds(3600))
        #expect(tighter.overflow(batches, protected: ["b1"], now: now).map(\.name) == ["b2", "b3"])
        let byAge = OutboxCaps(maxBytes: 1 << 30, maxEvents: 1 << 30, maxAge: .seconds(10))
        #expect(byAge.overflow(batches, protected: [], now: now.advanced(byNanoseconds: 3_000_000_000)).count == 2)
        #expect(byAge.overflow(batches, protected: [], now: now.advanced(byNanoseconds: -5_000_000_000)).isEmpty)
        // Exact below the second (a file's time was whole seconds, which kept a batch 2.5 s old under
        // a 2 s cap): 2.5 s past the write is past the cap, 1.5 s is not.
        let twoSeconds = OutboxCaps(maxBytes: 1 << 30, maxEvents: 1 << 30, maxAge: .seconds(2))
        let writtenAt = Timestamp(secondsSinceEpoch: 10, nanoseconds: 900_000_000)
        let written = [OutboxCaps.Batch(name: "b", events: 1, bytes: 1, writtenAt: writtenAt)]
        #expect(
            twoSeconds.overflow(written, protected: [], now: writtenAt.advanced(byNanoseconds: 2_500_000_000)).count
                == 1
        )
        #expect(
            twoSeconds.overflow(written, protected: [], now: writtenAt.advanced(byNanoseconds: 1_500_000_000)).isEmpty
        )
    }

    @Test("a split interrupted by a crash: finished when every part is there, else its parts are removed")
    func interruptedSplit() {
        var ledger = OutboxLedger(outboxID: "o")
        _ = ledger.reconcile(listing: [BatchName(sequence: 1, events: 10).description])
        let original = BatchName(sequence: 1, events: 10).description
        let parts = [BatchName(sequence: 2, events: 5).description, BatchName(sequence: 3, events: 5).description]
        ledger.lastSequence = 3
        ledger.pendingSplit = OutboxLedger.PendingSplit(original: original, parts: parts)
        var finished = ledger
        let done = finished.reconcile(listing: [original] + parts)
        #expect(done.redo == [OutboxLedger.Settlement(name: original, disposition: .delete)])
        #expect(finished.written == 10 && finished.pendingSplit == nil && finished.waitingByCounts == 10)
        var abandoned = ledger
        let undone = abandoned.reconcile(listing: [original, parts[0]])
        #expect(undone.abandonedParts == [parts[0]] && undone.redo.isEmpty)
        #expect(abandoned.written == 10 && abandoned.pendingSplit == nil)
    }
}
