import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An exclusive `flock(2)` on a file: held by one open file at a time, across processes and
/// between two opens in one process, and released by the kernel when the process dies (even by
/// `kill -9`), so a crash never leaves the outbox locked.
package final class FileLock: @unchecked Sendable {
    package let path: String
    private let descriptor: Int32

    /// Opens (creating) `path`.
    package init(path: String) throws(DeliveryError) {
        self.path = path
        descriptor = systemOpen(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let error = SystemFiles.failure("open", path)
            throw DeliveryError(.outboxUnavailable, error.message, errno: error.errno)
        }
    }

    deinit { close(descriptor) }

    /// Waits for the lock. Use only for locks held briefly (the state lock).
    package func lock() {
        while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
    }

    /// Takes the lock if it is free; false when another holder has it.
    package func tryLock() -> Bool {
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
            if errno != EINTR { return false }
        }
    }

    package func unlock() {
        _ = flock(descriptor, LOCK_UN)
    }
}
