import Testing

@testable import TallyPipeline

/// The one retry loop of the sink workers and the collector's commit rounds.
struct RetryDriverTests {
    struct Failure: ClassifiedError {
        var errorClass: SinkErrorClass
    }

    static let policy = RetryPolicy(maxAttempts: 3, initialBackoff: .zero, maxBackoff: .zero, jitter: 0)

    @Test("a transient error is retried until the attempts are used up; each retry is announced")
    func transientIsRetried() async {
        var announced: [Int] = []
        var attempts: [Int] = []
        let driver = RetryDriver(policy: Self.policy)
        let outcome = await driver.run(willRetry: { _, attempt, _ in announced.append(attempt) }) { attempt in
            attempts.append(attempt)
            throw Failure(errorClass: .transient)
        }
        guard case .failed(_, let count, let stop) = outcome else { Issue.record("succeeded"); return }
        #expect(count == 3 && stop == .exhausted)
        #expect(attempts == [1, 2, 3] && announced == [1, 2])
    }

    @Test("a permanent error stops after one attempt")
    func permanentStops() async {
        let outcome = await RetryDriver(policy: Self.policy).run { _ in throw Failure(errorClass: .permanent) }
        guard case .failed(_, let count, let stop) = outcome else { Issue.record("succeeded"); return }
        #expect(count == 1 && stop == .permanent)
    }

    @Test("shouldRetry can decline, and a later success ends the run")
    func declinedAndSuccess() async {
        let declined = await RetryDriver(policy: Self.policy).run(shouldRetry: { _, _ in false }) { _ in
            throw Failure(errorClass: .transient)
        }
        guard case .failed(_, 1, .declined) = declined else { Issue.record("\(declined)"); return }
        let succeeded = await RetryDriver(policy: Self.policy).run { attempt in
            if attempt < 2 { throw Failure(errorClass: .transient) }
        }
        guard case .succeeded(attempts: 2) = succeeded else { Issue.record("\(succeeded)"); return }
    }

    @Test("cancelled while waiting out a backoff: stops with the attempt's error")
    func cancelledWhileWaiting() async {
        // A wait no starved test run outlives: only the cancel can end it.
        let policy = RetryPolicy(
            maxAttempts: 5,
            initialBackoff: .seconds(3_600),
            maxBackoff: .seconds(3_600),
            jitter: 0
        )
        let waiting = AsyncStream<Void>.makeStream()
        let task = Task {
            await RetryDriver(policy: policy).run(willRetry: { _, _, _ in waiting.continuation.yield() }) { _ in
                throw Failure(errorClass: .transient)
            }
        }
        for await _ in waiting.stream { break }
        task.cancel()
        let outcome = await task.value
        guard case .failed(let error, 1, .cancelledWhileWaiting) = outcome else { Issue.record("\(outcome)"); return }
        #expect(error is Failure)
    }
}
