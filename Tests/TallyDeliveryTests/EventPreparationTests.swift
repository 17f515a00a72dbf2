import Foundation
import TallyCore
import Testing

@testable import TallyDelivery

/// The preparation chain: stages in order, drops counted under their stage's counter and
/// carried into the outbox's counters and its `outbox_diagnostics` report.
@Suite("Event preparation chain")
struct EventPreparationTests {
    @Test("stages run in order on every event; a drop stops the chain and is counted under the stage's counter")
    func order() {
        let chain = EventPreparation(stages: [
            .init("first", counter: .droppedByHooks) { event in
                event.properties["seen"] = "first"
                return true
            },
            .init("drops odd", counter: .droppedByHooks) { event in
                guard case .integer(let index)? = event.properties["index"] else { return false }
                return index % 2 == 0
            },
            .init("samples", counter: .sampledOut) { event in
                guard case .string(let seen)? = event.properties["seen"] else { return false }
                event.properties["seen"] = .string(seen + ",third")
                return event.properties["index"] != .integer(4)
            },
        ])
        let outcome = chain.prepare(OutboxFixture.events(6))
        #expect(outcome.kept.map { $0.properties["index"] } == [.integer(0), .integer(2)])
        #expect(outcome.kept.allSatisfy { $0.properties["seen"] == "first,third" })
        #expect(outcome.dropped.droppedByHooks == 3 && outcome.dropped.sampledOut == 1)
        #expect(outcome.dropped.dropped == 0, "a stage's drop is on purpose, not a loss")
    }

    @Test("an empty chain hands the batch over unchanged")
    func empty() {
        let events = OutboxFixture.events(3)
        let outcome = EventPreparation().prepare(events)
        #expect(outcome.kept == events && outcome.dropped == DiagnosticCounts())
    }

    @Test("the chain's drops reach the outbox's lifetime counters and its next report, even with nothing written")
    func countedInOutbox() throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        let outbox = try fixture.open()
        var drops = DiagnosticCounts()
        drops.add(2, to: .droppedByHooks)
        drops.add(5, to: .sampledOut)
        #expect(outbox.write([], prepared: drops) == .nothing)
        let state = try fixture.open().snapshot()
        #expect(state.droppedByHooks == 2 && state.sampledOut == 5 && state.dropped == 0)
        #expect(outbox.run.withLock { $0 }.droppedByHooks == 2)
        let claims = outbox.claim(maxEvents: 10)
        let report = try #require(claims.first.flatMap { outbox.read($0) }?.first)
        #expect(report.name == "outbox_diagnostics")
        #expect(report.properties["dropped_by_hooks"] == .integer(2) && report.properties["sampled_out"] == .integer(5))
    }

    @Test("a state.json written before the new counters existed reads them as zero")
    func oldState() throws {
        let json =
            #"{"dropped_queue":1,"dropped_caps":2,"dropped_disk_full":0,"corrupt_files":0,"#
            + #""corrupt_events":0,"dead_lettered_events":3}"#
        let counts = try JSONDecoder().decode(DiagnosticCounts.self, from: Data(json.utf8))
        #expect(counts.droppedQueue == 1 && counts.deadLetteredEvents == 3 && counts.droppedByHooks == 0)
    }
}
