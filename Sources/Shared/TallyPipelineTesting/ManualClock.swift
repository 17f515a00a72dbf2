import TallyCore

/// A clock that only moves when a test advances it: batch intervals and retry backoff without
/// sleeping (a sink's write deadline runs on the continuous clock).
///
/// Pass it as an `EventPipeline`'s `clock`. A task that sleeps on it stays asleep until
/// ``advance(by:)`` moves time past its deadline (or the task is cancelled);
/// ``waitForSleepers(count:)`` returns once the pipeline is waiting on the clock, so a test knows
/// when to advance it; ``waitForSleeper(for:)`` waits for one particular sleep, a retry's backoff
/// for instance.
///
/// ```swift
/// let clock = ManualClock()
/// let pipeline = EventPipeline(sinks: [sink], configuration: configuration, clock: clock)
/// // run the pipeline, send fewer events than a batch …
/// await clock.waitForSleepers(count: 1)
/// clock.advance(by: configuration.batchInterval)  // the partial batch is now due
/// ```
public final class ManualClock: Clock, Sendable {
    /// A moment on a ``ManualClock``: the time advanced since the clock was created.
    public struct Instant: InstantProtocol {
        /// The time advanced since the clock was created.
        public var offset: Duration

        /// The moment `offset` after the clock was created.
        public init(offset: Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var id: UInt64
        var deadline: Instant
        /// How long it asked to sleep, from the moment it asked.
        var duration: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }

    /// What a test waits for: a number of sleepers, or one sleeping for a given duration.
    private enum Awaited {
        case count(Int)
        case duration(Duration)

        func isMet(by sleepers: [Sleeper]) -> Bool {
            switch self {
            case .count(let count): sleepers.count >= count
            case .duration(let duration): sleepers.contains { $0.duration == duration }
            }
        }
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        /// Every sleep requested, as a duration from the moment it was requested.
        var requestedSleeps: [Duration] = []
        var sleeperWaiters: [(awaited: Awaited, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    /// A clock at offset zero.
    public init() {}

    /// The current moment: moves only with ``advance(by:)``.
    public var now: Instant { state.withLock { $0.now } }
    /// One nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Every sleep asked for so far, in order, as durations from the moment it was asked for (a
    /// retry schedule, for instance).
    public var requestedSleeps: [Duration] { state.withLock { $0.requestedSleeps } }

    /// Suspends until ``advance(by:)`` moves time to `deadline` or past it; returns at once if it
    /// is already there. Throws `CancellationError` when the task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, waiters) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    let duration = state.now.duration(to: deadline)
                    state.requestedSleeps.append(duration)
                    if Task.isCancelled || deadline <= state.now { return (true, []) }
                    state.sleepers.append(
                        Sleeper(id: id, deadline: deadline, duration: duration, continuation: continuation)
                    )
                    let sleepers = state.sleepers
                    let ready = state.sleeperWaiters.filter { $0.awaited.isMet(by: sleepers) }.map(\.continuation)
                    state.sleeperWaiters.removeAll { $0.awaited.isMet(by: sleepers) }
                    return (false, ready)
                }
                for waiter in waiters { waiter.resume() }
                if resumeNow {
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume()
                    }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline passed.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once at least `count` tasks sleep on this clock.
    public func waitForSleepers(count: Int) async {
        await wait(for: .count(count))
    }

    /// Returns once a task sleeps on this clock for exactly `duration`, counted from the moment it
    /// began to sleep: a retry's backoff, say, whatever else (a batch interval's timer) sleeps
    /// beside it. Any sleeper still asleep counts, one the test waited for before included; and
    /// the match is exact, so give the `RetryPolicy` no jitter (`jitter: 0`) to wait for its
    /// backoff.
    public func waitForSleeper(for duration: Duration) async {
        await wait(for: .duration(duration))
    }

    private func wait(for awaited: Awaited) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if awaited.isMet(by: state.sleepers) { return true }
                state.sleeperWaiters.append((awaited, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
