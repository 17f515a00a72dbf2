#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A file's new contents, written beside it and swapped in whole: a temporary file in the same
/// directory, fsynced, renamed over the file, the directory fsynced. A crash at any point leaves
/// the old file or the new one, never a mix; at worst a temporary file, whose name starts with a
/// dot and ends in `.tmp` (``isTemporary(_:)``), which no reader lists.
///
/// `@unchecked Sendable`: used by one task at a time, which may hand it to a ``BlockingIO`` queue
/// for the rename.
package final class FileReplacement: @unchecked Sendable {
    /// The file being replaced.
    package let path: String
    /// Where the new contents go until ``commit()``.
    package let temporaryPath: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    /// Bytes written so far.
    package private(set) var size = 0

    /// Creates the temporary file next to `path`.
    package init(replacing path: String) throws(IOError) {
        self.path = path
        let directory = Directory.parent(of: path)
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        var random = SystemRandomNumberGenerator()
        temporaryPath = directory + "/." + name + ".\(getpid())-\(String(random.next() % 1_000_000_000, radix: 36)).tmp"
        descriptor = systemOpen(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw IOError(.open, path: temporaryPath, errno: errno) }
    }

    deinit {
        if descriptor >= 0 {
            close(descriptor)
            unlink(temporaryPath)
        }
    }

    /// Whether a directory entry is a temporary file of an unfinished replacement.
    package static func isTemporary(_ name: String) -> Bool {
        name.hasPrefix(".") && name.hasSuffix(".tmp")
    }

    /// Adds `bytes` to the new contents.
    package func append(_ bytes: UnsafeBufferPointer<UInt8>) throws(IOError) {
        buffer.append(contentsOf: bytes)
        size += bytes.count
        if buffer.count >= 1 << 20 { try drain() }
    }

    /// Adds `bytes` to the new contents.
    package func append(_ bytes: [UInt8]) throws(IOError) {
        try bytes.withUnsafeBufferPointer { (buffer) throws(IOError) in try append(buffer) }
    }

    private func drain() throws(IOError) {
        guard !buffer.isEmpty else { return }
        try FileDescriptorWriter.writeAll(buffer, to: descriptor, path: temporaryPath)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is buffered and fsyncs the temporary file: the new contents are durable, not yet
    /// in place.
    package func sync() throws(IOError) {
        try drain()
        if fsync(descriptor) != 0 { throw IOError(.fsync, path: temporaryPath, errno: errno) }
    }

    /// ``sync()``, then renames the temporary file over ``path`` and fsyncs the directory.
    package func commit() throws(IOError) {
        try sync()
        close(descriptor)
        descriptor = -1
        if rename(temporaryPath, path) != 0 {
            let error = IOError(.rename, path: path, errno: errno)
            unlink(temporaryPath)
            throw error
        }
        try Directory.sync(Directory.parent(of: path))
    }

    /// Drops the new contents: the file stays as it was.
    package func discard() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        unlink(temporaryPath)
    }
}
