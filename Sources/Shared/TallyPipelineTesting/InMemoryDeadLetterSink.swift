import TallyCore
public import TallyPipeline

/// Keeps dead letters in memory, for tests that check what an `EventPipeline` gave up on:
/// pass it as the pipeline's `deadLetters`, then read ``letters`` (the events, the sink, the reason
/// and the attempts). ``waitForLetters(count:)`` waits for them without sleeping.
public final class InMemoryDeadLetterSink: DeadLetterSink, Sendable {
    private let state = Locked<(letters: [DeadLetter], waiters: [CheckedContinuation<Void, Never>])>(([], []))

    /// Creates an empty dead-letter sink.
    public init() {}

    /// Every dead letter, in order.
    public var letters: [DeadLetter] { state.withLock { $0.letters } }

    /// Returns once at least `count` dead letters arrived.
    public func waitForLetters(count: Int) async {
        while state.withLock({ $0.letters.count }) < count {
            await withCheckedContinuation { continuation in
                let arrived = state.withLock { state -> Bool in
                    if state.letters.count >= count { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if arrived { continuation.resume() }
            }
        }
    }

    /// Keeps `letter` and wakes the tests waiting for it.
    public func store(_ letter: DeadLetter) async throws {
        let waiters = state.withLock { state in
            state.letters.append(letter)
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
