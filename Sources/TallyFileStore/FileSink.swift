public import Logging
public import TallyCore
public import TallyPipeline

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The file store's sink: append-only NDJSON, one file per UTC day of `occurred_at`.
///
/// Each batch is one `write(2)` per day file (`O_APPEND`), so a crash can tear at most the last
/// line, which ``FileStoreReader`` recognizes. ``flush()`` fsyncs every file written since the last
/// flush (and the directory when files were created): only then is a batch durable. A file that
/// reaches ``Configuration/maxFileSize`` is closed and the day continues in the next segment.
///
/// File calls block briefly; like SwiftNIO's `NonBlockingFileIO` would, they could move to a
/// thread pool, but a local append is shorter than a hop there.
public actor FileSink: EventSink {
    /// File sink settings.
    public struct Configuration: Sendable, Hashable {
        /// A day file is continued in a new segment once it holds this many bytes.
        public var maxFileSize: Int
        /// The most day files kept open at once (events for many past days close the oldest).
        public var maxOpenFiles: Int

        /// 256 MiB segments, 16 open files.
        public init(maxFileSize: Int = 256 << 20, maxOpenFiles: Int = 16) {
            self.maxFileSize = maxFileSize
            self.maxOpenFiles = maxOpenFiles
        }
    }

    private struct OpenFile {
        var descriptor: Int32
        var path: String
        var segment: Int
        var size: Int
        var needsSync = false
        var lastUse: UInt64 = 0
    }

    public nonisolated let name = "file"
    /// Where the files go.
    public nonisolated let layout: FileStoreLayout
    /// The settings in use.
    public nonisolated let configuration: Configuration
    private let logger: Logger
    /// A day's file of events or of identity records.
    private struct FileKey: Hashable {
        var day: CivilDate
        var identities: Bool
    }

    private var openFiles: [FileKey: OpenFile] = [:]
    private var directoryNeedsSync = false
    private var identitiesDirectoryNeedsSync = false
    private var useCounter: UInt64 = 0
    private var isShutDown = false

    /// A sink writing under `directory` (created when missing).
    public init(
        directory: String = FileStoreLayout.defaultRoot,
        configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "tally.file-store")
    ) {
        layout = FileStoreLayout(root: directory)
        self.configuration = configuration
        self.logger = logger
    }

    public func write(_ batch: [EventEnvelope]) async throws {
        guard !isShutDown else { throw IOError(operation: "write", path: layout.eventsDirectory, errno: EBADF) }
        var byDay: [FileKey: [UInt8]] = [:]
        for event in batch {
            let key = FileKey(day: event.occurredAt.utcDate, identities: event.kind.isIdentity)
            event.appendNDJSON(to: &byDay[key, default: []])
        }
        // Oldest day first, so a batch of one day (the usual case) is a single write.
        let ordered = byDay.sorted {
            ($0.key.identities ? 1 : 0, $0.key.day.daysSinceEpoch) < (
                $1.key.identities ? 1 : 0, $1.key.day.daysSinceEpoch
            )
        }
        for (key, bytes) in ordered {
            try append(bytes, key: key)
        }
    }

    public func flush() async throws {
        var firstError: IOError?
        for (day, file) in openFiles where file.needsSync {
            if fsync(file.descriptor) != 0 {
                firstError = firstError ?? IOError(operation: "fsync", path: file.path, errno: errno)
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

    public func shutdown() async throws {
        defer {
            for file in openFiles.values { close(file.descriptor) }
            openFiles = [:]
            isShutDown = true
        }
        try await flush()
    }

    private func append(_ bytes: [UInt8], key: FileKey) throws(IOError) {
        var file = try openFile(key)
        if file.size > 0 && file.size + bytes.count > configuration.maxFileSize {
            try rotate(&file, key: key)
        }
        do {
            try FileDescriptorWriter.writeAll(bytes, to: file.descriptor, path: file.path)
        } catch {
            // A partial write leaves a torn line; start the next write on a fresh line.
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

    private func rotate(_ file: inout OpenFile, key: FileKey) throws(IOError) {
        if fsync(file.descriptor) != 0 { throw IOError(operation: "fsync", path: file.path, errno: errno) }
        close(file.descriptor)
        openFiles[key] = nil
        let next = try open(path: path(key, segment: file.segment + 1), segment: file.segment + 1, key: key)
        logger.debug("rotated day file", metadata: ["tally.file": "\(next.path)"])
        file = next
    }

    private func path(_ key: FileKey, segment: Int) -> String {
        key.identities
            ? layout.identityFile(day: key.day, segment: segment) : layout.eventFile(day: key.day, segment: segment)
    }

    private func openFile(_ key: FileKey) throws(IOError) -> OpenFile {
        if let file = openFiles[key] { return file }
        if openFiles.count >= configuration.maxOpenFiles,
            let (oldestDay, oldest) = openFiles.min(by: { $0.value.lastUse < $1.value.lastUse })
        {
            if oldest.needsSync && fsync(oldest.descriptor) != 0 {
                throw IOError(operation: "fsync", path: oldest.path, errno: errno)
            }
            close(oldest.descriptor)
            openFiles[oldestDay] = nil
        }
        try Directory.create(key.identities ? layout.identitiesDirectory : layout.eventsDirectory)
        let segments = try key.identities ? layout.identitySegments() : layout.eventSegments()
        let segment = segments.filter { $0.day == key.day }.map(\.number).max() ?? 0
        return try open(path: path(key, segment: segment), segment: segment, key: key)
    }

    private func open(path: String, segment: Int, key: FileKey) throws(IOError) -> OpenFile {
        let descriptor = systemOpen(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw IOError(operation: "open", path: path, errno: errno) }
        var file = OpenFile(descriptor: descriptor, path: path, segment: segment, size: Self.fileSize(descriptor))
        if file.size == 0 {
            if key.identities { identitiesDirectoryNeedsSync = true } else { directoryNeedsSync = true }
        } else if !Self.endsWithNewline(path: path, size: file.size) {
            // A torn last line from a crash: end it, so the next event starts on a line of its own.
            try FileDescriptorWriter.writeAll([UInt8(ascii: "\n")], to: descriptor, path: path)
            file.size += 1
            logger.warning("ended a torn last line left by an earlier crash", metadata: ["tally.file": "\(path)"])
        }
        return file
    }

    private static func fileSize(_ descriptor: Int32) -> Int {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
    }

    private static func endsWithNewline(path: String, size: Int) -> Bool {
        let descriptor = systemOpen(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return true }
        defer { close(descriptor) }
        var last: UInt8 = 0
        return pread(descriptor, &last, 1, off_t(size - 1)) == 1 && last == UInt8(ascii: "\n")
    }

    static func syncDirectory(_ path: String) throws(IOError) {
        let descriptor = systemOpen(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw IOError(operation: "open", path: path, errno: errno) }
        defer { close(descriptor) }
        if fsync(descriptor) != 0 { throw IOError(operation: "fsync", path: path, errno: errno) }
    }
}
