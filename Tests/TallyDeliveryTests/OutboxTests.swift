import Foundation
import TallyCore
import Testing

@testable import TallyDelivery

/// The outbox on a real directory: atomic batch files, counters exact across instances and
/// crashes, corrupt files moved aside, caps, the upload lock.
@Suite("Outbox on disk")
struct OutboxTests {
    @Test("a batch is one whole file in batches/, nothing left in tmp/, counted in state.json, read back as written")
    func atomicBatch() throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let outbox = try fixture.open()
        let events = OutboxFixture.events(5)
        #expect(outbox.write(events) == .written(waiting: 5))
        #expect(fixture.files(fixture.layout.batches) == ["0000000000000001-5.ndjson"])
        #expect(fixture.files(fixture.layout.temporary) == ["reserve"], "nothing but the full-disk reserve")
        let claims = outbox.claim(maxEvents: 100)
        #expect(claims.map(\.name) == ["0000000000000001-5.ndjson"])
        #expect(outbox.read(claims[0]) == events)
        let state = try String(contentsOfFile: fixture.layout.state, encoding: .utf8)
        #expect(state.contains(#""written":5"#) && state.contains(#""in_flight":["0000000000000001-5.ndjson"]"#))
        #expect(outbox.finish([(claims[0].name, .uploaded)])[.uploaded] == 5)
        let snapshot = outbox.snapshot()
        #expect(snapshot.written == 5 && snapshot.uploaded == 5 && snapshot.waitingEvents == 0)
        #expect(fixture.files(fixture.layout.batches).isEmpty)
    }

    @Test("a batch renamed in before a kill -9 could count it is counted once when the outbox is opened again")
    func reconcileAtOpen() throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        _ = try fixture.open().write(OutboxFixture.events(3))
        // What a writer killed between its rename and its state.json leaves behind.
        let orphan = BatchName(sequence: 2, events: 4).description
        var bytes: [UInt8] = []
        for event in OutboxFixture.events(4) { event.appendNDJSON(to: &bytes) }
        try Data(bytes).write(to: URL(fileURLWithPath: fixture.layout.batch(orphan)))
        let reopened = try fixture.open()
        let snapshot = reopened.snapshot()
        #expect(snapshot.written == 7 && snapshot.waitingEvents == 7)
        #expect(reopened.write(OutboxFixture.events(1)) == .written(waiting: 8))
        #expect(fixture.files(fixture.layout.batches).last == "0000000000000003-1.ndjson")
        #expect(try fixture.open().snapshot().written == 8)
    }

    @Test("two outboxes on one directory, writing at once from two threads: every batch counted exactly once")
    func sharedDirectory() throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let outboxes = [try fixture.open(), try fixture.open()]
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            for _ in 0..<25 { _ = outboxes[index].write(OutboxFixture.events(2)) }
        }
        let names = fixture.files(fixture.layout.batches)
        #expect(names.count == 50 && Set(names.compactMap(BatchName.init).map(\.sequence)) == Set(1...50))
        #expect(outboxes[0].snapshot().written == 100)
        #expect(outboxes[0].run.withLock { $0.written } + outboxes[1].run.withLock { $0.written } == 100)
    }

    @Test("upload.lock: one holder at a time, across two opens of the directory; released on unlock")
    func uploadLock() throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let first = try fixture.open()
        let second = try fixture.open()
        #expect(first.uploadLock.tryLock())
        #expect(!second.uploadLock.tryLock())
        first.uploadLock.unlock()
        #expect(second.uploadLock.tryLock())
        #expect(!first.uploadLock.tryLock())
        second.uploadLock.unlock()
    }

    @Test("a truncated batch and a garbage file are moved to corrupt/, counted, reported; the rest still goes out")
    func corruptFiles() throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let outbox = try fixture.open()
        for _ in 0..<3 { _ = outbox.write(OutboxFixture.events(4)) }
        // Cut the second batch after its first line: valid NDJSON, but fewer events than its name says.
        let second = fixture.layout.batch("0000000000000002-4.ndjson")
        let text = try String(contentsOfFile: second, encoding: .utf8)
        try String(text.prefix { $0 != "\n" } + "\n").write(toFile: second, atomically: false, encoding: .utf8)
        try "not json\n".write(toFile: fixture.layout.batch("garbage"), atomically: false, encoding: .utf8)
        let claims = outbox.claim(maxEvents: 100)
        #expect(claims.map(\.name) == (1...3).map { BatchName(sequence: UInt64($0), events: 4).description })
        let contents = claims.map { outbox.read($0) }
        #expect(contents.map { $0 == nil } == [false, true, false])
        outbox.finish(zip(claims, contents).map { ($0.name, $1 == nil ? .corrupt : .uploaded) })
        #expect(fixture.files(fixture.layout.corrupt) == ["0000000000000002-4.ndjson", "garbage"])
        let state = outbox.snapshot()
        #expect(state.losses.corruptFiles == 2 && state.corruptEvents == 4 && state.uploaded == 8)
        #expect(state.written == state.uploaded + state.corruptEvents + UInt64(state.waitingEvents))
        // The next request carries the report of what was lost.
        let report = try #require(outbox.claim(maxEvents: 100).first)
        #expect(report.batch?.isDiagnostics == true)
        let event = try #require(outbox.read(report)?.first)
        #expect(event.name == "outbox_diagnostics" && event.feature == "tally")
        #expect(event.properties.values["corrupt_files"] == .integer(2))
        #expect(event.properties.values["corrupt_events"] == .integer(4))
        #expect(event.properties.values["outbox_id"] == .string(state.outboxID))
    }

    @Test("over its caps the outbox drops the oldest batches, counts them and reports them")
    func caps() throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let outbox = try fixture.open(caps: OutboxCaps(maxBytes: 1 << 30, maxEvents: 25))
        for _ in 0..<4 { _ = outbox.write(OutboxFixture.events(10)) }
        #expect(fixture.files(fixture.layout.batches) == ["0000000000000003-10.ndjson", "0000000000000004-10.ndjson"])
        let state = outbox.snapshot()
        #expect(state.losses.droppedCaps == 20 && state.waitingEvents == 20 && state.written == 40)
        let claims = outbox.claim(maxEvents: 100)
        let report = try #require(claims.first.flatMap { outbox.read($0) }?.first)
        #expect(report.properties.values["dropped_caps"] == .integer(20))
    }

    @Test("offline, one report waits at a time: later losses go into the next, none lost")
    func oneReportWaits() throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let outbox = try fixture.open(caps: OutboxCaps(maxBytes: 1 << 30, maxEvents: 15))
        var dropped: Int64 = 0
        for attempt in 0..<5 {
            for _ in 0..<2 { _ = outbox.write(OutboxFixture.events(10)) }
            _ = outbox.claim(maxEvents: 100)
            outbox.finish([])  // each upload attempt fails
            let reports = fixture.files(fixture.layout.batches).filter { $0.hasSuffix("-diagnostics.ndjson") }
            #expect(reports.count == 1, "attempt \(attempt): \(reports)")
        }
        // Once the waiting report is acknowledged, the next carries everything lost since it.
        for _ in 0..<2 {
            let claims = outbox.claim(maxEvents: 100)
            let report = try #require(claims.first { $0.batch?.isDiagnostics == true })
            let event = try #require(outbox.read(report)?.first)
            if case .integer(let count) = event.properties.values["dropped_caps"] { dropped += count }
            outbox.finish(claims.map { ($0.name, .uploaded) })
        }
        #expect(dropped == Int64(outbox.snapshot().losses.droppedCaps) && dropped > 0)
        #expect(fixture.files(fixture.layout.batches).isEmpty)
    }

    @Test(
        "a report the collector refused for good is dead-lettered; its losses go into the next report, made once a request is acknowledged"
    )
    func refusedReport() throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let outbox = try fixture.open(caps: OutboxCaps(maxBytes: 1 << 30, maxEvents: 15))
        for _ in 0..<2 { _ = outbox.write(OutboxFixture.events(10)) }
        let refused = outbox.claim(maxEvents: 100)
        #expect(refused.contains { $0.batch?.isDiagnostics == true })
        outbox.finish(refused.map { ($0.name, .deadLettered) })  // say, a wrong write key: 401
        // No new report while the collector refuses: one made at once would be refused at once.
        #expect(outbox.claim(maxEvents: 100).isEmpty)
        outbox.finish([])
        _ = outbox.write(OutboxFixture.events(5))
        let accepted = outbox.claim(maxEvents: 100)
        #expect(accepted.count == 1 && accepted.allSatisfy { $0.batch?.isDiagnostics == false })
        outbox.finish(accepted.map { ($0.name, .uploaded) })
        let next = outbox.claim(maxEvents: 100)
        let report = try #require(next.first { $0.batch?.isDiagnostics == true }.flatMap { outbox.read($0)?.first })
        #expect(report.properties.values["dropped_caps"] == .integer(10), "carried over from the refused report")
        #expect(report.properties.values["dead_lettered_events"] == .integer(10))
        #expect(fixture.files(fixture.layout.deadLetter).count == 2)
    }

    @Test("the waiting report's bytes count against the byte cap, and it is never the one dropped")
    func reportBytesUnderTheCap() throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let byEvents = try fixture.open(caps: OutboxCaps(maxBytes: 1 << 30, maxEvents: 15))
        for _ in 0..<2 { _ = byEvents.write(OutboxFixture.events(10)) }
        _ = byEvents.claim(maxEvents: 100)
        byEvents.finish([])
        let files = fixture.files(fixture.layout.batches)
        let sizes = try files.map { name in
            try #require(FileManager.default.attributesOfItem(atPath: fixture.layout.batch(name))[.size] as? Int)
        }
        #expect(files.count == 2 && files[1].hasSuffix("-diagnostics.ndjson"))
        // Room for two batches, not for two batches and the report: the next write drops the older batch.
        let cap = 2 * sizes[0] + sizes[1] - 1
        let byBytes = try fixture.open(caps: OutboxCaps(maxBytes: cap, maxEvents: 1 << 30))
        _ = byBytes.write(OutboxFixture.events(10))
        let left = fixture.files(fixture.layout.batches)
        #expect(left.count == 2 && !left.contains(files[0]) && left.contains(files[1]), "\(left)")
    }

    @Test("batches a failed request brings back are put under the caps again at once")
    func capsAfterAFailedRequest() throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let outbox = try fixture.open(caps: OutboxCaps(maxBytes: 1 << 30, maxEvents: 25))
        for _ in 0..<2 { _ = outbox.write(OutboxFixture.events(10)) }
        let claims = outbox.claim(maxEvents: 100)
        for _ in 0..<2 { _ = outbox.write(OutboxFixture.events(10)) }
        #expect(outbox.snapshot().waitingEvents == 40, "in flight: neither dropped nor counted")
        #expect(claims.count == 2)
        outbox.finish([])  // the request failed: the uploader records nothing
        #expect(fixture.files(fixture.layout.batches) == ["0000000000000003-10.ndjson", "0000000000000004-10.ndjson"])
        #expect(outbox.snapshot().losses.droppedCaps == 20)
    }

    @Test("a claim holds only what its request carries: a report or a small batch ahead of a full one goes alone")
    func claimOnlyWhatTheRequestCarries() throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let outbox = try fixture.open(caps: OutboxCaps(maxBytes: 1 << 30, maxEvents: 25))
        for count in [10, 10, 10, 3, 10] { _ = outbox.write(OutboxFixture.events(count)) }
        // The caps dropped the first two batches: a report (one event on the wire) waits, and a
        // full batch beside it would make 11 events. Claimed anyway, it was read, left out of the
        // request and read again by the next cycle.
        let first = outbox.claim(maxEvents: 10)
        #expect(first.map { $0.batch?.isDiagnostics } == [true])
        let state = try String(contentsOfFile: fixture.layout.state, encoding: .utf8)
        #expect(state.contains(#""in_flight":["\#(first[0].name)"]"#))
        outbox.finish(first.map { ($0.name, .uploaded) })
        #expect(outbox.claim(maxEvents: 10).map(\.name) == ["0000000000000003-10.ndjson"])
        outbox.finish([("0000000000000003-10.ndjson", .uploaded)])
        #expect(outbox.claim(maxEvents: 10).map(\.name) == ["0000000000000004-3.ndjson"])
        outbox.finish([("0000000000000004-3.ndjson", .uploaded)])
        #expect(outbox.claim(maxEvents: 10).map(\.name) == ["0000000000000005-10.ndjson"])
    }

    @Test("queue drops are counted with the next write, and reported")
    func queueDrops() throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let outbox = try fixture.open()
        _ = outbox.write(OutboxFixture.events(1), queueDrops: 7)
        _ = outbox.write([], queueDrops: 2)
        #expect(try fixture.open().snapshot().losses.droppedQueue == 9)
    }

    @Test("purge empties the outbox; what was purged is counted apart from losses")
    func purge() throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let outbox = try fixture.open()
        for _ in 0..<3 { _ = outbox.write(OutboxFixture.events(2)) }
        outbox.purge()
        let state = outbox.snapshot()
        #expect(state.waitingEvents == 0 && state.purged == 6 && state.dropped == 0)
        #expect(fixture.files(fixture.layout.batches).isEmpty)
    }

    @Test("a batch split after a 413: parts replace it, counters unchanged, each part leaves on its own")
    func split() throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let outbox = try fixture.open()
        let events = OutboxFixture.events(10)
        _ = outbox.write(events)
        let claim = try #require(outbox.claim(maxEvents: 100).first)
        let parts = try #require(outbox.split(claim, events: events, limit: 4))
        #expect(
            parts.map(\.claim.name) == [
                "0000000000000002-4.ndjson", "0000000000000003-4.ndjson", "0000000000000004-2.ndjson",
            ]
        )
        #expect(parts.flatMap(\.events) == events)
        #expect(fixture.files(fixture.layout.batches) == parts.map(\.claim.name))
        outbox.finish([(parts[0].claim.name, .uploaded)])
        let state = outbox.snapshot()
        #expect(state.written == 10 && state.uploaded == 4 && state.waitingEvents == 6)
    }
}
