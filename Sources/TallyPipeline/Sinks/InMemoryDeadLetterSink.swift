import TallyCore

/// Keeps dead letters in memory: for tests.
public final class InMemoryDeadLetterSink: DeadLetterSink, @unchecked Sendable {
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

    public func store(_ letter: DeadLetter) async throws {
        let waiters = state.withLock { state in
            state.letters.append(letter)
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
