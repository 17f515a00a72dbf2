public import Logging
public import TallyCore
public import TallyPipeline

/// The file store's sink: append-only NDJSON, one file per UTC day of `occurred_at`.
///
/// Each batch is one `write(2)` per day file (`O_APPEND`), so a crash can tear at most the last
/// line, which ``FileStoreReader`` recognizes. ``flush()`` fsyncs every file written since the last
/// flush (and the directory when files were created): only then is a batch durable. A file that
/// reaches ``Configuration/maxFileSize`` is closed and the day continues in the next segment.
///
/// Events are encoded on the caller's task; the system calls run on a queue of the sink's own
/// (``BlockingIO``, as libpq's do), so a slow disk never blocks Swift's cooperative threads. They
/// are not cancellable: a write or fsync in progress completes.
public final class FileSink: EventSink {
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

    public let name = "file"
    /// Where the files go.
    public let layout: FileStoreLayout
    /// The settings in use.
    public let configuration: Configuration
    private let io = BlockingIO(label: "tally.file-store")
    private let files: DayFiles
    private let skewedEvents: SkewedEventIndex

    /// A sink writing under `directory` (created when missing).
    public init(
        directory: String = FileStoreLayout.defaultRoot,
        configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "tally.file-store")
    ) {
        layout = FileStoreLayout(root: directory)
        skewedEvents = SkewedEventIndex(layout: layout)
        self.configuration = configuration
        files = DayFiles(
            layout: layout,
            maxFileSize: configuration.maxFileSize,
            maxOpenFiles: configuration.maxOpenFiles,
            logger: logger
        )
    }

    public func write(_ batch: [EventEnvelope]) async throws {
        var batch = batch
        if batch.contains(where: { $0.deviceOccurredAt != nil }) {
            // Every copy of an event from the future goes to the day of its first placement.
            let index = skewedEvents
            let placed = batch.filter { $0.deviceOccurredAt != nil }
            let first = try await io.run { _ throws(IOError) in try index.place(placed) }
            for position in batch.indices where batch[position].deviceOccurredAt != nil {
                if let time = first[batch[position].eventID] { batch[position].occurredAt = time }
            }
        }
        var byDay: [DayFiles.Key: [UInt8]] = [:]
        for event in batch {
            let key = DayFiles.Key(day: event.occurredAt.utcDate, identities: event.kind.isIdentity)
            Self.appendLine(event, to: &byDay[key, default: []])
        }
        // Oldest day first, so a batch of one day (the usual case) is a single write.
        let ordered = byDay.sorted {
            ($0.key.identities ? 1 : 0, $0.key.day.daysSinceEpoch) < (
                $1.key.identities ? 1 : 0, $1.key.day.daysSinceEpoch
            )
        }.map { (key: $0.key, bytes: $0.value) }
        let files = self.files
        try await io.run { _ throws(IOError) in try files.append(ordered) }
    }

    /// The envelope's NDJSON line, with `corrected_at` (``EventEnvelope/correctedAt``) before its
    /// closing brace when the event has one: the store keeps the clock-corrected time beside the
    /// device's own.
    static func appendLine(_ event: EventEnvelope, to bytes: inout [UInt8]) {
        event.appendNDJSON(to: &bytes)
        guard let corrected = event.correctedAt else { return }
        bytes.removeLast(2)  // "}\n"
        bytes.append(contentsOf: #","corrected_at":""#.utf8)
        corrected.appendRFC3339(to: &bytes)
        bytes.append(contentsOf: "\"}\n".utf8)
    }

    public func flush() async throws {
        let files = self.files
        try await io.run { _ throws(IOError) in try files.flush() }
    }

    public func shutdown() async throws {
        let files = self.files
        try await io.run { _ throws(IOError) in try files.shutdown() }
    }
}
