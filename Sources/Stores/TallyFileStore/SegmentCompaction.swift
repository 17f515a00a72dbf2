import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The compaction of one day file (see ``FileStoreCompactor``): read it without its lock, then,
/// holding the lock, read what was appended since and swap the file.
struct SegmentCompaction {
    let path: String
    let dryRun: Bool
    /// Whether the file was removed (nothing was left in it).
    private(set) var removed = false
    /// Whether it was left alone (replaced by someone else, or a line too long to copy).
    private(set) var skipped = false

    private var replacement: FileReplacement?
    private var outputBytes = 0
    private var changed = false
    private let decoder = EnvelopeDecoder()

    init(path: String, dryRun: Bool) {
        self.path = path
        self.dryRun = dryRun
    }

    mutating func run(
        seen: inout Set<EventID>,
        report: inout CompactionReport,
        beforeReplacing: (@Sendable (String) throws -> Void)?
    ) throws {
        let descriptor = systemOpen(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return }
            throw IOError(.open, path: path, errno: errno)
        }
        defer { close(descriptor) }
        replacement = dryRun ? nil : try FileReplacement(replacing: path)
        defer { replacement?.discard() }
        var local = report
        do {
            // The bulk, unlocked: writers go on appending. A last line without newline may be a
            // write in progress, so it is left for the locked pass.
            var bulk = StoreFileScanner(descriptor: descriptor, path: path, includeUnterminated: false)
            try bulk.scanAll { line in try keep(line, seen: &seen, report: &local) }
            try replacement?.sync()
            try FileLock.lock(descriptor, path: path)
            defer { FileLock.unlock(descriptor) }
            guard FileLock.isCurrent(descriptor, path: path) else {
                report.skipped.append(.init(path: path, reason: "replaced by another process meanwhile"))
                skipped = true
                return
            }
            // What was appended since; writers hold this lock while they write, so a last line
            // without newline now is torn for good.
            var tail = StoreFileScanner(
                descriptor: descriptor,
                path: path,
                from: bulk.end,
                firstNumber: bulk.nextNumber,
                includeUnterminated: true
            )
            try tail.scanAll { line in try keep(line, seen: &seen, report: &local) }
            var info = stat()
            let size = fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
            local.filesRead += 1
            local.bytesBefore += size
            guard changed else {
                local.bytesAfter += size
                report = local
                return
            }
            local.bytesAfter += outputBytes
            local.filesRewritten.append(path)
            report = local
            guard let replacement else { return }
            try replacement.sync()
            try beforeReplacing?(path)
            if outputBytes == 0 {
                replacement.discard()
                if unlink(path) != 0 { throw IOError(.unlink, path: path, errno: errno) }
                try Directory.sync(Directory.parent(of: path))
                removed = true
            } else {
                try replacement.commit()
            }
        } catch let error as StoreFileScanner.LineTooLong {
            report.skipped.append(.init(path: path, reason: error.description + ": left as it is"))
            skipped = true
        }
    }

    /// Copies `line` to the new file unless it is a copy of an event already kept or torn.
    private mutating func keep(
        _ line: StoreFileScanner.Line,
        seen: inout Set<EventID>,
        report: inout CompactionReport
    ) throws {
        if !line.isTerminated { changed = true }  // kept or not, the file changes
        if line.bytes.isEmpty {
            if line.isTerminated { try write(line.bytes) }
            return
        }
        do throws(EnvelopeDecodingError) {
            let event = try decoder.decodeDerivingMissingID(line.bytes)
            guard seen.insert(event.eventID).inserted else {
                report.duplicatesRemoved += 1
                changed = true
                return
            }
        } catch {
            // A fragment of a write that did not finish is never whole JSON; anything else is kept.
            guard line.isTerminated, error.code != .malformedJSON else {
                report.tornLines.append(.init(path: path, line: line.number, bytes: line.bytes.count))
                changed = true
                return
            }
            report.unreadableKept.append(.init(path: path, line: line.number, reason: error.description))
        }
        report.linesKept += 1
        try write(line.bytes)
    }

    private mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) throws(IOError) {
        outputBytes += bytes.count + 1
        guard let replacement else { return }
        try replacement.append(bytes)
        try replacement.append([UInt8(ascii: "\n")])
    }
}
