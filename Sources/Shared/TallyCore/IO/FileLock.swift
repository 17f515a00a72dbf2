#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The lock every writer of a file store file holds while it appends, and whatever rewrites or
/// deletes the file (compaction, replay, retention) holds while it swaps the file.
///
/// An exclusive `flock(2)` on the file itself, taken around each `write(2)`. A rewriter replaces
/// the file by `rename(2)` while it holds the lock of the old one, so an appender that waited on
/// that lock finds, once it has it, that its descriptor is no longer the file at the path (another
/// inode, or none): it opens the path again and locks that. No append can land in a file that was
/// already read for a rewrite, whichever process makes it.
package enum FileLock {
    /// Takes the exclusive lock of `descriptor`, waiting for it (and through `EINTR`).
    package static func lock(_ descriptor: Int32, path: String) throws(IOError) {
        while flock(descriptor, LOCK_EX) != 0 {
            if errno != EINTR { throw IOError(.flock, path: path, errno: errno) }
        }
    }

    /// Takes the exclusive lock of `descriptor` if nobody holds it; false when somebody does.
    package static func tryLock(_ descriptor: Int32, path: String) throws(IOError) -> Bool {
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if errno == EWOULDBLOCK { return false }
            if errno != EINTR { throw IOError(.flock, path: path, errno: errno) }
        }
        return true
    }

    /// Releases the lock of `descriptor` (closing it does too).
    package static func unlock(_ descriptor: Int32) {
        _ = flock(descriptor, LOCK_UN)
    }

    /// Whether `descriptor` is still the file at `path`: not renamed over, not deleted.
    package static func isCurrent(_ descriptor: Int32, path: String) -> Bool {
        var open = stat()
        var named = stat()
        guard fstat(descriptor, &open) == 0, stat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    /// `path` opened for appending and reading (created when missing, mode 0644) and locked: the caller writes,
    /// then closes it (which releases the lock) or unlocks it.
    package static func openLockedForAppend(_ path: String) throws(IOError) -> Int32 {
        try relock(-1, path: path).descriptor
    }

    /// Locks `descriptor`, an appender's descriptor of `path` kept open between writes (-1: none
    /// yet). When a rewrite or a deletion replaced the file meanwhile, the descriptor is closed and
    /// `path` opened again (created when missing) and locked; `reopened` says so.
    package static func relock(_ descriptor: Int32, path: String) throws(IOError) -> (
        descriptor: Int32, reopened: Bool
    ) {
        var current = descriptor
        var reopened = false
        while true {
            if current < 0 {
                // Read too: ``endsWithNewline(_:)`` reads the last byte (unless only writing is allowed).
                current = systemOpen(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
                if current < 0 && errno == EACCES {
                    current = systemOpen(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
                }
                guard current >= 0 else { throw IOError(.open, path: path, errno: errno) }
            }
            do {
                try lock(current, path: path)
            } catch {
                close(current)
                throw error
            }
            if isCurrent(current, path: path) { return (current, reopened) }
            close(current)
            current = -1
            reopened = true
        }
    }

    /// Appends `bytes` (whole lines) to `path` under its lock: locks `descriptor` (-1: opens `path`;
    /// a replaced file is opened again, and `descriptor` updated), ends a torn last line first, writes,
    /// unlocks. The caller fsyncs and closes `descriptor` when it is done with it.
    package static func append(_ bytes: [UInt8], to descriptor: inout Int32, path: String) throws(IOError) {
        do {
            descriptor = try relock(descriptor, path: path).descriptor
        } catch {
            descriptor = -1  // relock closed it
            throw error
        }
        defer { unlock(descriptor) }
        if !endsWithNewline(descriptor) {
            try FileDescriptorWriter.writeAll([UInt8(ascii: "\n")], to: descriptor, path: path)
        }
        try FileDescriptorWriter.writeAll(bytes, to: descriptor, path: path)
    }

    /// Whether the file ends with a newline (or is empty): a crash or a failed write can leave a
    /// torn last line, which the next writer ends before appending its own.
    package static func endsWithNewline(_ descriptor: Int32) -> Bool {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size > 0 else { return true }
        var last: UInt8 = 0
        return pread(descriptor, &last, 1, info.st_size - 1) != 1 || last == UInt8(ascii: "\n")
    }
}
