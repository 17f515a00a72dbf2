import TallyCore
import Testing

@testable import TallyPipeline

/// The bounded queue between the batcher and one sink worker.
@Suite("AsyncBoundedQueue")
struct AsyncBoundedQueueTests {
    @Test("elements come out in order; finish drains what is queued, then next is nil")
    func orderAndFinish() async {
        let queue = AsyncBoundedQueue<Int>(capacity: 4)
        for value in 1...3 { await queue.push(value) }
        queue.finish()
        await queue.push(99)  // after finish: discarded
        var out: [Int] = []
        while let value = await queue.next() { out.append(value) }
        #expect(out == [1, 2, 3])
    }

    @Test("push waits while the queue is full, until the consumer takes one")
    func pushWaitsWhenFull() async throws {
        let queue = AsyncBoundedQueue<Int>(capacity: 1)
        await queue.push(1)
        let pushed = Locked(false)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await queue.push(2)
                pushed.withLock { $0 = true }
            }
            try await Task.sleep(for: .milliseconds(50))
            #expect(!pushed.withLock { $0 }, "still waiting for room")
            #expect(await queue.next() == 1)
            try await group.waitForAll()
            #expect(pushed.withLock { $0 })
            #expect(await queue.next() == 2)
        }
    }

    @Test("a waiting consumer gets the next element pushed; finish releases a waiting consumer and producer")
    func waitersAreReleased() async {
        let queue = AsyncBoundedQueue<Int>(capacity: 1)
        async let first = queue.next()
        await queue.push(5)
        #expect(await first == 5)

        await queue.push(6)
        async let blocked: Void = queue.push(7)  // full: waits
        async let drained: [Int] = {
            var out: [Int] = []
            while let value = await queue.next() { out.append(value) }
            return out
        }()
        queue.finish()
        await blocked
        let values = await drained
        #expect(values.first == 6 && values.count <= 2, "\(values)")
    }
}
