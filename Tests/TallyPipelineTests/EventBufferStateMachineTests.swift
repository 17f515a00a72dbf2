import DequeModule
import TallyCore
import Testing

@testable import TallyPipeline

/// The buffer's transitions one by one, with integers for continuations: no task, lock or clock.
@Suite("EventBuffer state machine")
struct EventBufferStateMachineTests {
    typealias Machine = EventBufferStateMachine<Int, Int>

    static func machine(capacity: Int = 4, batch: Int = 2, policy: OverflowPolicy = .block) -> Machine {
        Machine(capacity: capacity, maxBatchSize: batch, policy: policy)
    }

    static let events = TestEvents.events(count: 10)

    @Test("below a batch the consumer waits; the event that fills a batch resumes it")
    func batchWakesConsumer() {
        var machine = Self.machine()
        var spare = Deque<EventEnvelope>()
        guard case .wait = machine.next(swappingWith: &spare) else { Issue.record("nothing is due"); return }
        guard case .suspended = machine.suspendConsumer(7) else { Issue.record("stored"); return }
        guard case .accepted(nil, nil) = machine.offer(Self.events[0]) else {
            Issue.record("queued, no wake")
            return
        }
        guard case .accepted(7, nil) = machine.offer(Self.events[1]) else {
            Issue.record("a full batch resumes the consumer")
            return
        }
        guard case .events(let producers) = machine.next(swappingWith: &spare) else { Issue.record("events"); return }
        #expect(producers.isEmpty)
        #expect(spare.map(\.eventID) == Self.events[0..<2].map(\.eventID))
        #expect(machine.events.isEmpty)
    }

    @Test("the ticker idles while nothing is queued; the next event, or close, resumes it")
    func idleTicker() {
        var machine = Self.machine(batch: 3)
        guard case .suspended = machine.idleTicker(5) else { Issue.record("empty: the ticker idles"); return }
        guard case .accepted(nil, 5) = machine.offer(Self.events[0]) else {
            Issue.record("the first event resumes the ticker")
            return
        }
        guard case .resumeNow = machine.idleTicker(6) else { Issue.record("an event waits: tick on"); return }
        guard case .accepted(nil, nil) = machine.offer(Self.events[1]) else {
            Issue.record("no ticker to resume")
            return
        }

        var empty = Self.machine(batch: 3)
        _ = empty.idleTicker(7)
        guard case .appended(2, nil, 7) = empty.append(Self.events[0..<2]) else {
            Issue.record("append resumes the ticker too")
            return
        }
        var closing = Self.machine()
        _ = closing.idleTicker(8)
        #expect(closing.close().ticker == 8, "close resumes it, so that it can end")
        guard case .resumeNow = closing.idleTicker(9) else { Issue.record("closed: it does not idle"); return }
        var cancelled = Self.machine()
        _ = cancelled.idleTicker(10)
        #expect(cancelled.cancelIdleTicker() == 10)
        #expect(cancelled.cancelIdleTicker() == nil, "taken once")
        guard case .resumeNow = cancelled.idleTicker(11, isCancelled: true) else {
            Issue.record("cancelled before it idled: nothing would resume it")
            return
        }
    }

    @Test("drops not yet reported keep the ticker ticking with the queue empty")
    func dropsKeepTicking() {
        var machine = Self.machine(capacity: 1, batch: 1)
        _ = machine.offer(Self.events[0])
        _ = machine.offer(Self.events[1])  // full under block: refused, counted as a drop
        var spare = Deque<EventEnvelope>()
        guard case .events = machine.next(swappingWith: &spare) else { Issue.record("events"); return }
        guard case .resumeNow = machine.idleTicker(1) else { Issue.record("a drop to report"); return }
        #expect(machine.tick().drops == 1)
        guard case .suspended = machine.idleTicker(2) else { Issue.record("reported: idle"); return }
    }

    @Test("a drop resumes the idle ticker, even when the consumer takes the event at once")
    func dropResumesIdleTicker() {
        var spare = Deque<EventEnvelope>()
        // Under block: the consumer is resumed for the first event; the second is refused.
        var blocking = Self.machine(capacity: 1, batch: 1)
        _ = blocking.idleTicker(1)
        guard case .wait = blocking.next(swappingWith: &spare) else { Issue.record("nothing yet"); return }
        _ = blocking.suspendConsumer(2)
        guard case .accepted(2, nil) = blocking.offer(Self.events[0]) else {
            Issue.record("the consumer takes it: the ticker may idle on")
            return
        }
        guard case .refused(1) = blocking.offer(Self.events[1]) else {
            Issue.record("the drop needs the ticker")
            return
        }
        // Under dropOldest: the second event pushes out the first before the consumer ran.
        var dropping = Self.machine(capacity: 1, batch: 1, policy: .dropOldest)
        _ = dropping.idleTicker(3)
        guard case .wait = dropping.next(swappingWith: &spare) else { Issue.record("nothing yet"); return }
        _ = dropping.suspendConsumer(4)
        guard case .accepted(4, nil) = dropping.offer(Self.events[0]) else { Issue.record("consumer"); return }
        guard case .accepted(nil, 3) = dropping.offer(Self.events[1]) else {
            Issue.record("the oldest dropped: the ticker reports it")
            return
        }
    }

    @Test("full under block: offer refuses and counts a drop; append takes what fits, then a producer waits")
    func blockPolicy() {
        var machine = Self.machine()
        guard case .appended(3, nil, nil) = machine.append(Self.events[0..<3]) else { Issue.record("3 of 3"); return }
        guard case .appended(1, nil, nil) = machine.append(Self.events[3..<6]) else { Issue.record("1 fits"); return }
        guard case .refused = machine.offer(Self.events[9]) else { Issue.record("full"); return }
        #expect(machine.counts.dropped == 1 && machine.counts.accepted == 5 && machine.counts.queued == 4)

        let id = machine.makeWaiterID()
        guard case .suspended = machine.waitForRoom(id: id, producer: 42, isCancelled: false) else {
            Issue.record("still full")
            return
        }
        var spare = Deque<EventEnvelope>()
        guard case .events(let producers) = machine.next(swappingWith: &spare) else { Issue.record("events"); return }
        #expect(producers == [42], "taking the events makes room: the producer is resumed")
        guard case .retry = machine.waitForRoom(id: machine.makeWaiterID(), producer: 43, isCancelled: false) else {
            Issue.record("room now")
            return
        }
    }

    @Test("a cancelled producer is failed, or removed while it waits")
    func cancelledProducer() {
        var machine = Self.machine(capacity: 1, batch: 1)
        _ = machine.offer(Self.events[0])
        guard case .cancelled = machine.waitForRoom(id: 1, producer: 1, isCancelled: true) else {
            Issue.record("cancelled")
            return
        }
        _ = machine.waitForRoom(id: 2, producer: 2, isCancelled: false)
        #expect(machine.cancelWaiter(id: 2) == 2)
        #expect(machine.cancelWaiter(id: 2) == nil, "resumed once only")
    }

    @Test("full under dropOldest: the oldest event makes room and is counted")
    func dropOldest() {
        var machine = Self.machine(capacity: 2, batch: 2, policy: .dropOldest)
        for event in Self.events[0..<3] { _ = machine.offer(event) }
        #expect(machine.events.map(\.eventID) == Self.events[1..<3].map(\.eventID))
        #expect(machine.counts.dropped == 1 && machine.counts.accepted == 3)
        #expect(machine.tick().drops == 1)
        #expect(machine.tick().drops == 0, "drops are reported once")
    }

    @Test("a tick makes a partial batch due and resumes the waiting consumer")
    func tickReleasesPartialBatch() {
        var machine = Self.machine()
        var spare = Deque<EventEnvelope>()
        _ = machine.offer(Self.events[0])
        guard case .wait = machine.next(swappingWith: &spare) else { Issue.record("not due"); return }
        _ = machine.suspendConsumer(1)
        #expect(machine.tick().resuming == 1)
        guard case .events = machine.next(swappingWith: &spare) else { Issue.record("partial batch"); return }
        #expect(spare.count == 1)
        #expect(machine.tick().resuming == nil, "an empty queue has nothing due")
    }

    @Test("a flush comes after the events accepted before it, and completes at once once finished")
    func flushOrdering() {
        var machine = Self.machine(capacity: 10, batch: 5)
        var spare = Deque<EventEnvelope>()
        _ = machine.offer(Self.events[0])
        let ticket = FlushTicket(parts: 1)
        guard case .queued(nil) = machine.requestFlush(ticket) else { Issue.record("queued"); return }
        _ = machine.offer(Self.events[1])
        guard case .events = machine.next(swappingWith: &spare) else { Issue.record("events first"); return }
        guard case .flush(let flushed) = machine.next(swappingWith: &spare) else { Issue.record("then flush"); return }
        #expect(flushed === ticket)
        spare.removeAll()
        let close = machine.close()
        #expect(close.consumer == nil && close.producers.isEmpty)
        guard case .finished(let pending) = machine.next(swappingWith: &spare) else { Issue.record("done"); return }
        #expect(pending.isEmpty)
        #expect(machine.lifecycle == .finished)
        guard case .completeNow = machine.requestFlush(FlushTicket(parts: 1)) else { Issue.record("gone"); return }
    }

    @Test("close: events are refused, waiters resumed, the queue drained, then finished with its flushes")
    func closeDrainsThenFinishes() {
        var machine = Self.machine(capacity: 2, batch: 2)
        var spare = Deque<EventEnvelope>()
        _ = machine.offer(Self.events[0])
        _ = machine.offer(Self.events[1])
        _ = machine.waitForRoom(id: 1, producer: 5, isCancelled: false)
        let ticket = FlushTicket(parts: 1)
        _ = machine.requestFlush(ticket)
        let close = machine.close()
        #expect(close.producers == [5])
        #expect(machine.lifecycle == .draining)
        guard case .refused = machine.offer(Self.events[2]) else { Issue.record("refused"); return }
        guard case .closed = machine.append(Self.events[3..<5]) else { Issue.record("closed"); return }
        #expect(machine.counts.refusedAfterClose == 3)
        guard case .events = machine.next(swappingWith: &spare) else { Issue.record("drained"); return }
        guard case .flush = machine.next(swappingWith: &spare) else { Issue.record("the flush"); return }
        guard case .finished = machine.next(swappingWith: &spare) else { Issue.record("finished"); return }
        #expect(machine.lifecycle == .finished)
        guard case .resumeNow = machine.suspendConsumer(1) else { Issue.record("never waits again"); return }
    }

    @Test("while draining, every flush still reaches the consumer before it finishes")
    func flushesBeforeFinish() {
        var machine = Self.machine()
        var spare = Deque<EventEnvelope>()
        let first = FlushTicket(parts: 1)
        _ = machine.requestFlush(first)
        _ = machine.close()
        // Nothing was accepted: the flush is due at once, and so is one requested while draining.
        guard case .flush(let flushed) = machine.next(swappingWith: &spare), flushed === first else {
            Issue.record("the first flush")
            return
        }
        let second = FlushTicket(parts: 1)
        guard case .queued = machine.requestFlush(second) else { Issue.record("still draining"); return }
        guard case .flush(let again) = machine.next(swappingWith: &spare), again === second else {
            Issue.record("the second flush")
            return
        }
        guard case .finished(let pending) = machine.next(swappingWith: &spare) else { Issue.record("done"); return }
        #expect(pending.isEmpty)
    }

    @Test("the batch size is capped at the capacity, so a full queue is always a full batch")
    func batchCappedAtCapacity() {
        #expect(Self.machine(capacity: 3, batch: 10).maxBatchSize == 3)
    }
}
