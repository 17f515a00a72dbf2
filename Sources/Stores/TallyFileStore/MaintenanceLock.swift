package import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The store-wide lock of the commands that rewrite or delete store files (`tally compact`,
/// `tally replay`): one at a time per data directory, so that a rewrite never starts from a file
/// another one is replacing, and leftover temporary files are known to be abandoned.
///
/// `flock(2)` on `DATA_DIR/maintenance.lock`; released when the process exits, however it ends.
/// Writers (`tally ingest`, `tally serve`) never take it: they take each file's own lock
/// (``FileLock``) around each append.
package final class MaintenanceLock {
    private let descriptor: Int32

    /// Takes the lock of the store at `layout`, waiting for another holder to finish (`waiting` is
    /// called once first, to say so).
    package init(layout: FileStoreLayout, waiting: () -> Void = {}) throws(IOError) {
        let path = layout.maintenanceLockFile
        let descriptor = systemOpen(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw IOError(.open, path: path, errno: errno) }
        do {
            if try !FileLock.tryLock(descriptor, path: path) {
                waiting()
                try FileLock.lock(descriptor, path: path)
            }
        } catch {
            close(descriptor)
            throw error
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }
}
