import Testing

@testable import TallyCore

/// `withTimeLimit`: one deadline for the pipeline's sink calls, the collector's commit rounds and
/// the dashboard's reports.
struct TimeLimitTests {
    @Test("an operation that finishes in time returns its value or its error")
    func finishesInTime() async throws {
        // Limits far beyond any wait for a thread: on a loaded 2-core host the whole suite can keep
        // this test from running for minutes.
        #expect(try await withTimeLimit(.seconds(3600)) { 42 } == 42)
        struct Failure: Error {}
        await #expect(throws: Failure.self) {
            try await withTimeLimit(.seconds(3600)) { () async throws -> Int in throw Failure() }
        }
    }

    @Test("past the limit the operation is cancelled, awaited, and the call throws TimeLimitExceeded")
    func cancelsPastTheLimit() async throws {
        let ended = Locked(false)
        let error = await #expect(throws: TimeLimitExceeded.self) {
            try await withTimeLimit(.milliseconds(50)) {
                defer { ended.withLock { $0 = true } }
                try await Task.sleep(for: .seconds(60))
            }
        }
        #expect(error?.limit == .milliseconds(50))
        #expect(ended.withLock { $0 }, "the operation returned before the call did")
    }

    @Test("an operation that completes despite the cancellation keeps its result")
    func completionWins() async throws {
        let value = try await withTimeLimit(.milliseconds(10)) { () async -> Int in
            // Ignores cancellation: busy until well past the limit.
            let start = ContinuousClock.now
            while ContinuousClock.now - start < .milliseconds(200) {}
            return 7
        }
        #expect(value == 7)
    }

    @Test("cancelling the caller cancels the operation, which fails as it fails on cancellation")
    func callerCancellation() async throws {
        let started = Locked(false)
        let task = Task {
            try await withTimeLimit(.seconds(3600)) {
                started.withLock { $0 = true }
                try await Task.sleep(for: .seconds(3600))
            }
        }
        while !started.withLock({ $0 }) { await Task.yield() }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
