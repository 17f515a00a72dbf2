import Logging
import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The open day files of a ``FileSink`` and every system call on them.
///
/// Used only on the sink's ``BlockingIO`` queue, one call at a time: that is what makes it
/// `@unchecked Sendable`, and what keeps `write(2)` and `fsync(2)` off the cooperative pool.
final class DayFiles: @unchecked Sendable {
    /// A day's file of events or of identity records.
    struct Key: Hashable {
        var day: CivilDate
        var identities: Bool
    }

    private struct OpenFile {
        var descriptor: Int32
        var path: String
        var segment: Int
        var size: Int
        var needsSync = false
        var lastUse: UInt64 = 0
    }

    private let layout: FileStoreLayout
    private let maxFileSize: Int
    private let maxOpenFiles: Int
    private let logger: Logger
    private var openFiles: [Key: OpenFile] = [:]
    private var directoryNeedsSync = false
    private var identitiesDirectoryNeedsSync = false
    private var useCounter: UInt64 = 0
    private var isShutDown = false

    init(layout: FileStoreLayout, maxFileSize: Int, maxOpenFiles: Int, logger: Logger) {
        self.layout = layout
        self.maxFileSize = maxFileSize
        self.maxOpenFiles = maxOpenFiles
        self.logger = logger
    }

    deinit {
        for file in openFiles.values { close(file.descriptor) }
    }

    /// fsyncs every file written since the last flush, and the directories that got new files.
    func flush() throws(IOError) {
        guard !isShutDown else { return }
        var firstError: IOError?
        for (day, file) in openFiles where file.needsSync {
            if fsync(file.descriptor) != 0 {
                firstError = firstError ?? IOError(.fsync, path: file.path, errno: errno)
            } else {
                openFiles[day]?.needsSync = false
            }
        }
        if directoryNeedsSync {
            do {
                try Self.syncDirectory(layout.eventsDirectory)
                directoryNeedsSync = false
            } catch {
                firstError = firstError ?? error
            }
        }
        if identitiesDirectoryNeedsSync {
            do {
                try Self.syncDirectory(layout.identitiesDirectory)
                identitiesDirectoryNeedsSync = false
            } catch {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
    }

    /// Flushes and closes every file; later appends fail.
    func shutdown() throws(IOError) {
        defer {
            for file in openFiles.values { close(file.descriptor) }
            openFiles = [:]
            isShutDown = true
        }
        try flush()
    }

    /// Appends each day's bytes to its file, in order.
    func append(_ pieces: [(key: Key, bytes: [UInt8])]) throws(IOError) {
        guard !isShutDown else { throw IOError(.write, path: layout.eventsDirectory, errno: EBADF) }
        for (key, bytes) in pieces { try append(bytes, key: key) }
    }

    private func append(_ bytes: [UInt8], key: Key) throws(IOError) {
        var file = try openFile(key)
        // Under the file's lock (``FileLock``): other processes append to the same day files, and
        // compaction or retention may have replaced or removed this one since the last write.
        while true {
            let locked: (descriptor: Int32, reopened: Bool)
            do {
                locked = try FileLock.relock(file.descriptor, path: file.path)
            } catch {
                openFiles[key] = nil  // closed by relock
                throw error
            }
            file.descriptor = locked.descriptor
            openFiles[key] = file
            if locked.reopened {
                // Replaced by a compaction (whose copy is durable) or removed by retention.
                if key.identities { identitiesDirectoryNeedsSync = true } else { directoryNeedsSync = true }
            }
            file.size = Self.fileSize(file.descriptor)
            guard file.size > 0 && file.size + bytes.count > maxFileSize else { break }
            FileLock.unlock(file.descriptor)
            try rotate(&file, key: key)
        }
        defer { FileLock.unlock(file.descriptor) }
        if !FileLock.endsWithNewline(file.descriptor) {
            // A torn last line (a crash, a failed write of any process): end it, so this batch
            // starts on a line of its own.
            try FileDescriptorWriter.writeAll([UInt8(ascii: "\n")], to: file.descriptor, path: file.path)
            file.size += 1
            logger.warning("ended a torn last line", metadata: ["tally.file": "\(file.path)"])
        }
        do {
            try FileDescriptorWriter.writeAll(bytes, to: file.descriptor, path: file.path)
        } catch {
            file.size = Self.fileSize(file.descriptor)
            openFiles[key] = file
            throw error
        }
        file.size += bytes.count
        file.needsSync = true
        useCounter += 1
        file.lastUse = useCounter
        openFiles[key] = file
    }

    private func rotate(_ file: inout OpenFile, key: Key) throws(IOError) {
        if fsync(file.descriptor) != 0 { throw IOError(.fsync, path: file.path, errno: errno) }
        close(file.descriptor)
        openFiles[key] = nil
        let next = try open(path: path(key, segment: file.segment + 1), segment: file.segment + 1, key: key)
        logger.debug("rotated day file", metadata: ["tally.file": "\(next.path)"])
        file = next
    }

    private func path(_ key: Key, segment: Int) -> String {
        key.identities
            ? layout.identityFile(day: key.day, segment: segment) : layout.eventFile(day: key.day, segment: segment)
    }

    private func openFile(_ key: Key) throws(IOError) -> OpenFile {
        if let file = openFiles[key] { return file }
        if openFiles.count >= maxOpenFiles,
            let (oldestDay, oldest) = openFiles.min(by: { $0.value.lastUse < $1.value.lastUse })
        {
            if oldest.needsSync && fsync(oldest.descriptor) != 0 {
                throw IOError(.fsync, path: oldest.path, errno: errno)
            }
            close(oldest.descriptor)
            openFiles[oldestDay] = nil
        }
        try Directory.create(key.identities ? layout.identitiesDirectory : layout.eventsDirectory)
        let segments = try key.identities ? layout.identitySegments() : layout.eventSegments()
        let segment = segments.filter { $0.day == key.day }.map(\.number).max() ?? 0
        return try open(path: path(key, segment: segment), segment: segment, key: key)
    }

    private func open(path: String, segment: Int, key: Key) throws(IOError) -> OpenFile {
        // Read too: a torn last line is found by reading the file's last byte.
        let descriptor = systemOpen(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw IOError(.open, path: path, errno: errno) }
        let file = OpenFile(descriptor: descriptor, path: path, segment: segment, size: Self.fileSize(descriptor))
        if file.size == 0 {
            if key.identities { identitiesDirectoryNeedsSync = true } else { directoryNeedsSync = true }
        }
        return file
    }

    private static func fileSize(_ descriptor: Int32) -> Int {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
    }

    static func syncDirectory(_ path: String) throws(IOError) {
        let descriptor = systemOpen(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw IOError(.open, path: path, errno: errno) }
        defer { close(descriptor) }
        if fsync(descriptor) != 0 { throw IOError(.fsync, path: path, errno: errno) }
    }
}
