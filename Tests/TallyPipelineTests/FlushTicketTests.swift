import TallyCore
import Testing

@testable import TallyPipeline

/// One `flush()` call: released once every sink worker is done with it.
@Suite("FlushTicket")
struct FlushTicketTests {
    @Test("waiters are released by the last part, not before")
    func releasedByLastPart() async throws {
        let ticket = FlushTicket(parts: 2)
        let done = Locked(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    await ticket.wait()
                    done.withLock { $0 += 1 }
                }
            }
            ticket.partDone()
            try await Task.sleep(for: .milliseconds(50))
            #expect(done.withLock { $0 } == 0, "one part of two")
            ticket.partDone()
            try await group.waitForAll()
        }
        #expect(done.withLock { $0 } == 3)
        await ticket.wait()  // done already: returns at once
    }

    @Test("complete releases the waiters whatever the count (no sinks, or the pipeline is gone)")
    func completeReleases() async {
        let ticket = FlushTicket(parts: 5)
        async let waiting: Void = await ticket.wait()
        ticket.complete()
        await waiting
        let none = FlushTicket(parts: 0)
        await none.wait()
    }

    @Test("a cancelled waiter returns at once; the others wait for the last part")
    func cancelledWaiterReturns() async throws {
        let ticket = FlushTicket(parts: 1)
        let cancelled = Task { await ticket.wait() }
        let waiting = Locked(true)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await ticket.wait()
                waiting.withLock { $0 = false }
            }
            cancelled.cancel()
            await cancelled.value
            #expect(waiting.withLock { $0 }, "the other waiter is still waiting")
            ticket.partDone()
            try await group.waitForAll()
        }
        #expect(!waiting.withLock { $0 })
    }
}
