import Foundation

/// Runs blocking work (waiting for a child process, polling a script) on a thread of its own and
/// suspends the calling task until it is done.
///
/// The test runner's tasks share the cooperative pool, whose width is the number of cores: on a
/// 2-core machine two tests blocked in `waitpid` or a semaphore stall every other test of the run.
public func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

/// ``offCooperativePool(_:)`` for work that cannot fail.
public func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: work()) }
    }
}
