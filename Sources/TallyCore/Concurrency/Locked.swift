#if canImport(Darwin)
    public import Darwin
#elseif canImport(Glibc)
    public import Glibc
#elseif canImport(Musl)
    public import Musl
#endif

/// A value protected by a mutex.
///
/// tally's hot paths (`track()`, the bounded queue) take a lock for a few nanoseconds and never
/// across an `await`. `Synchronization.Mutex` would do, but it needs macOS 15 / iOS 18 and the
/// in-app pipeline targets older systems; this is the same idea on `os_unfair_lock` / `pthread_mutex`.
public final class Locked<State>: @unchecked Sendable {
    // Inlinable so that callers in other modules get a specialized, closure-free lock path.
    #if canImport(Darwin)
        @usableFromInline let mutex: UnsafeMutablePointer<os_unfair_lock>
    #else
        @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    #endif
    // The state lives behind a pointer rather than in a stored `var`: class properties pay for
    // dynamic exclusivity checks on every `inout` access, which doubled the cost of an enqueue.
    @usableFromInline let state: UnsafeMutablePointer<State>

    /// Wraps `state` in a new lock.
    public init(_ state: State) {
        self.state = .allocate(capacity: 1)
        self.state.initialize(to: state)
        #if canImport(Darwin)
            mutex = .allocate(capacity: 1)
            mutex.initialize(to: os_unfair_lock())
        #else
            mutex = .allocate(capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            let result = pthread_mutex_init(mutex, nil)
            precondition(result == 0, "pthread_mutex_init failed: \(result)")
        #endif
    }

    deinit {
        #if !canImport(Darwin)
            pthread_mutex_destroy(mutex)
        #endif
        mutex.deinitialize(count: 1)
        mutex.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Runs `body` with exclusive access to the state. Never `await` or block inside `body`.
    @inlinable @inline(__always)
    public func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        #if canImport(Darwin)
            os_unfair_lock_lock(mutex)
            defer { os_unfair_lock_unlock(mutex) }
        #else
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
        #endif
        return try body(&state.pointee)
    }
}
