public import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads the events of a file store back, in file order, with bounded memory.
///
/// A crash can leave a torn last line (no newline, cut mid-event): it is skipped and counted in
/// ``Report/tornLines``, never an error. Any other unreadable line is reported in
/// ``Report/unreadableLines`` with its file and line number.
public struct FileStoreReader: Sendable {
    /// What a read found besides events.
    public struct Report: Sendable, Hashable {
        /// Files read.
        public var files = 0
        /// Events delivered.
        public var events = 0
        /// Last lines cut short by a crash, skipped.
        public var tornLines = 0
        /// Lines that are not envelopes: file, line number, reason.
        public var unreadableLines: [UnreadableLine] = []
    }

    /// A line the reader could not read as an envelope.
    public struct UnreadableLine: Sendable, Hashable {
        /// The file.
        public var path: String
        /// 1-based.
        public var line: Int
        /// Why.
        public var reason: String
    }

    /// The store's layout.
    public let layout: FileStoreLayout
    private let decoder = EnvelopeDecoder()

    /// A reader of the store under `directory`.
    public init(directory: String = FileStoreLayout.defaultRoot) {
        layout = FileStoreLayout(root: directory)
    }

    /// Calls `body` with every event, oldest day first.
    @discardableResult
    public func forEachEvent(_ body: (EventEnvelope) throws -> Void) throws -> Report {
        var report = Report()
        for segment in try layout.eventSegments() {
            try read(segment.path, into: &report, body)
        }
        return report
    }

    /// Calls `body` with every event of one segment.
    @discardableResult
    package func forEachEvent(inSegment segment: FileStoreLayout.Segment, _ body: (EventEnvelope) throws -> Void) throws
        -> Report
    {
        var report = Report()
        try read(segment.path, into: &report, body)
        return report
    }

    /// Calls `body` for every identity record (identify, group, alias) in the store, oldest day first.
    @discardableResult
    public func forEachIdentity(_ body: (EventEnvelope) throws -> Void) throws -> Report {
        var report = Report()
        for segment in try layout.identitySegments() {
            try read(segment.path, into: &report, body)
        }
        return report
    }

    /// Every event in the store (for tests and small stores; use ``forEachEvent(_:)`` otherwise).
    public func readAll() throws -> (events: [EventEnvelope], report: Report) {
        var events: [EventEnvelope] = []
        let report = try forEachEvent { events.append($0) }
        return (events, report)
    }

    private func read(_ path: String, into report: inout Report, _ body: (EventEnvelope) throws -> Void) throws {
        let descriptor = systemOpen(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw IOError(.open, path: path, errno: errno) }
        defer { close(descriptor) }
        report.files += 1
        var reader = LineReader(descriptor: descriptor, path: path)
        var localReport = report
        try reader.forEachLine { line in
            if line.oversizedLength == nil && line.bytes.isEmpty { return }
            do {
                guard line.oversizedLength == nil else {
                    throw EnvelopeDecodingError(.malformedJSON, path: "$", message: "line too long")
                }
                let event = try decoder.decodeDerivingMissingID(line.bytes)
                try body(event)
                localReport.events += 1
            } catch let error as EnvelopeDecodingError {
                if !line.isTerminated {
                    localReport.tornLines += 1
                } else {
                    localReport.unreadableLines.append(
                        UnreadableLine(path: path, line: line.number, reason: error.description)
                    )
                }
            }
        }
        report = localReport
    }
}
