import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The file store's record of where it placed each event from the future (`skewed-events.ndjson`:
/// `{"event_id":…,"occurred_at":…,"device_occurred_at":…}` per line), so every copy of one goes to
/// the day file of its first placement and stays a duplicate there.
///
/// Shared by every process writing the store: a lookup holds the file's `flock` while it reads what
/// others appended and appends (and fsyncs) what is new, so two writers of the same event agree.
/// Used only on a ``FileSink``'s ``BlockingIO`` queue, one call at a time: that is what makes it
/// `@unchecked Sendable`. The placements stay in memory: only events from the future are in it.
final class SkewedEventIndex: @unchecked Sendable {
    let path: String
    private let directory: String
    private var known: [EventID: Timestamp] = [:]
    /// How much of the file ``known`` holds: up to the end of its last complete line.
    private var readOffset = 0

    init(layout: FileStoreLayout) {
        path = layout.skewedEventsFile
        directory = layout.root
    }

    /// The time of each event's first placement: the recorded one, else its own, recorded now.
    func place(_ events: [EventEnvelope]) throws(IOError) -> [EventID: Timestamp] {
        var descriptor = systemOpen(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        if descriptor < 0, errno == ENOENT {
            try Directory.create(directory)
            descriptor = systemOpen(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        }
        guard descriptor >= 0 else { throw IOError(.open, path: path, errno: errno) }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX) == 0 else { throw IOError(.flock, path: path, errno: errno) }
        defer { flock(descriptor, LOCK_UN) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw IOError(.stat, path: path, errno: errno) }
        let size = Int(info.st_size)
        try readNew(descriptor, size: size)
        var lines: [UInt8] = []
        for event in events where known[event.eventID] == nil {
            guard let device = event.deviceOccurredAt else { continue }
            known[event.eventID] = event.occurredAt
            lines.append(contentsOf: #"{"event_id":""#.utf8)
            event.eventID.appendCanonical(to: &lines)
            lines.append(contentsOf: #"","occurred_at":""#.utf8)
            event.occurredAt.appendRFC3339(to: &lines)
            lines.append(contentsOf: #"","device_occurred_at":""#.utf8)
            device.appendRFC3339(to: &lines)
            lines.append(contentsOf: "\"}\n".utf8)
        }
        if !lines.isEmpty {
            // A line cut short by a crash is ended first, so the new ones stay whole.
            if size > readOffset { lines.insert(UInt8(ascii: "\n"), at: 0) }
            try FileDescriptorWriter.writeAll(lines, to: descriptor, path: path)
            guard fsync(descriptor) == 0 else { throw IOError(.fsync, path: path, errno: errno) }
            if size == 0 { try Self.syncDirectory(directory) }
            readOffset = size + lines.count
        }
        var placements: [EventID: Timestamp] = [:]
        for event in events { placements[event.eventID] = known[event.eventID] }
        return placements
    }

    /// Reads the lines appended since the last look (by this process or another).
    private func readNew(_ descriptor: Int32, size: Int) throws(IOError) {
        guard size > readOffset else { return }
        var bytes = [UInt8](repeating: 0, count: size - readOffset)
        var filled = 0
        while filled < bytes.count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + filled, buffer.count - filled, off_t(readOffset + filled))
            }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw IOError(.read, path: path, errno: got < 0 ? errno : EIO) }
            filled += got
        }
        var start = 0
        while let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            if let value = try? JSONParser.parse(bytes[start..<end]),
                let id = value["event_id"]?.stringValue.flatMap({ EventID($0) }),
                let time = value["occurred_at"]?.stringValue.flatMap({ Timestamp(rfc3339: $0) }),
                known[id] == nil
            {
                known[id] = time
            }
            start = end + 1
        }
        readOffset += start
    }

    private static func syncDirectory(_ path: String) throws(IOError) {
        let descriptor = systemOpen(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw IOError(.open, path: path, errno: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw IOError(.fsync, path: path, errno: errno) }
    }
}
