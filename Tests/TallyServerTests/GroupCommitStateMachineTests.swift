import Testing

@testable import TallyServer

@Suite("Group commit state machine")
struct GroupCommitStateMachineTests {
    typealias Machine = GroupCommitStateMachine<Int>

    func machine(pending: Int = 100, rounds: Int = 1, roundEvents: Int = 10) -> Machine {
        Machine(
            configuration: .init(maxPendingEvents: pending, maxConcurrentRounds: rounds, maxRoundEvents: roundEvents)
        )
    }

    @Test("requests that arrive while a round is written share the next round")
    func groupCommit() {
        var machine = machine()
        #expect(machine.submit(1, events: 2, deadline: 100) == .enqueued)
        let first = machine.nextRound()
        #expect(first?.requests == [1])
        #expect(machine.nextRound() == nil)  // one writer, busy
        for id in 2...4 { #expect(machine.submit(id, events: 2, deadline: 100) == .enqueued) }
        #expect(machine.pendingEvents == 6)
        #expect(machine.nextRound() == nil)
        #expect(machine.roundSucceeded(first!.id).map(\.0) == [1])
        let second = machine.nextRound()
        #expect(second?.requests == [2, 3, 4])
        #expect(second?.events == 6)
        #expect(machine.pendingEvents == 0)
        let answers = machine.roundSucceeded(second!.id)
        #expect(answers.map(\.0) == [2, 3, 4])
        #expect(answers.allSatisfy { $0.1 == .committed })
    }

    @Test("a round stops at maxRoundEvents but always takes one request")
    func roundSize() {
        var machine = machine(roundEvents: 5)
        _ = machine.submit(1, events: 50, deadline: 100)
        _ = machine.submit(2, events: 3, deadline: 100)
        _ = machine.submit(3, events: 3, deadline: 100)
        let first = machine.nextRound()!
        #expect(first.requests == [1])
        _ = machine.roundSucceeded(first.id)
        #expect(machine.nextRound()?.requests == [2])
    }

    @Test("concurrent rounds up to the sink's writers")
    func concurrentRounds() {
        var machine = machine(rounds: 2, roundEvents: 1)
        for id in 1...3 { _ = machine.submit(id, events: 1, deadline: 100) }
        let a = machine.nextRound()
        let b = machine.nextRound()
        #expect(a?.requests == [1])
        #expect(b?.requests == [2])
        #expect(machine.nextRound() == nil)
        #expect(machine.roundsInFlight == 2)
        _ = machine.roundFailed(a!.id)
        #expect(machine.nextRound()?.requests == [3])
    }

    @Test("over capacity: refused at once, nothing queued")
    func full() {
        var machine = machine(pending: 10)
        #expect(machine.submit(1, events: 8, deadline: 100) == .enqueued)
        #expect(machine.submit(2, events: 3, deadline: 100) == .refuseFull)
        #expect(machine.pendingRequests == 1)
        // Alone, a request larger than the capacity still goes through.
        var empty = self.machine(pending: 10)
        #expect(empty.submit(1, events: 30, deadline: 100) == .enqueued)
    }

    @Test("a failed round answers failed to everyone still waiting")
    func failure() {
        var machine = machine()
        _ = machine.submit(1, events: 1, deadline: 100)
        _ = machine.submit(2, events: 1, deadline: 100)
        let round = machine.nextRound()!
        #expect(machine.isAwaited(round.id))
        let answers = machine.roundFailed(round.id)
        #expect(answers.map(\.0) == [1, 2])
        #expect(answers.allSatisfy { $0.1 == .failed })
        #expect(!machine.isAwaited(round.id))
    }

    @Test("deadlines: a pending request leaves the queue, an in-flight one is answered and a late success ignored")
    func deadlines() {
        var machine = machine()
        _ = machine.submit(1, events: 1, deadline: 10)
        let round = machine.nextRound()!
        _ = machine.submit(2, events: 4, deadline: 20)
        _ = machine.submit(3, events: 1, deadline: 50)
        #expect(machine.earliestDeadline == 10)
        #expect(machine.expire(now: 5).isEmpty)
        #expect(machine.expire(now: 10).map(\.0) == [1])
        #expect(!machine.isAwaited(round.id))  // nobody waits: no reason to retry
        #expect(machine.expire(now: 20).map(\.0) == [2])
        #expect(machine.pendingEvents == 1)
        #expect(machine.roundSucceeded(round.id).isEmpty)  // 1 was already told it timed out
        let next = machine.nextRound()!
        #expect(next.requests == [3])  // 2 is never written
        #expect(machine.roundSucceeded(next.id).map(\.0) == [3])
    }

    @Test("shutdown refuses new requests and is drained once pending work is written")
    func shutdown() {
        var machine = machine()
        _ = machine.submit(1, events: 1, deadline: 100)
        machine.beginShutdown()
        #expect(machine.submit(2, events: 1, deadline: 100) == .refuseShuttingDown)
        #expect(!machine.isDrained)
        let round = machine.nextRound()!
        #expect(!machine.isDrained)
        _ = machine.roundSucceeded(round.id)
        #expect(machine.isDrained)
    }
}
