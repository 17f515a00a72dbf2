#if canImport(Darwin)
    package import Darwin
#elseif canImport(Glibc)
    package import Glibc
#elseif canImport(Musl)
    package import Musl
#endif

/// A value protected by a mutex.
///
/// tally's hot paths (`track()`, the bounded queue) take a lock for a few nanoseconds and never
/// across an `await`. `Synchronization.Mutex` would do, but it needs macOS 15 / iOS 18 and the
/// in-app pipeline targets older systems; this is the same idea on `os_unfair_lock` / `pthread_mutex`.
///
/// Sendable only when `State` is: the lock serializes access, but a non-Sendable state handed out
/// of ``withLock(_:)`` could still be shared across isolation domains.
package final class Locked<State> {
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
    package init(_ state: State) {
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
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
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

extension Locked: @unchecked Sendable where State: Sendable {}
