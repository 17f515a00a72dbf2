import Foundation
package import TallyCore
import TallyFileStore
package import TallyFormats
package import TallyPipeline
package import TallySchema

/// Reads NDJSON inputs line by line (bounded memory whatever their size), turns each line into a
/// validated envelope or a reject with its reason, file and line number, and sends the good ones
/// through the pipeline with backpressure.
///
/// Lines without `event_id` get an id derived from their bytes, so ingesting a file twice stores
/// each event once. Inputs are read in 1 MiB chunks by `read(2)` on a queue of the job's own
/// (``BlockingIO``), off the cooperative pool, so a pipe that sends nothing holds up no other task
/// and ``stop()`` ends the wait; the pipeline's sinks run concurrently on other tasks.
package final class IngestJob {
    /// Settings of one run.
    package struct Options: Sendable {
        /// Structural checks, and the tracking plans when there is a registry.
        package var validator: EventValidator
        /// Longer lines are rejected as `too_large` without being buffered. A line holds one event
        /// or a batch of them, so it is at least the validator's `limits.maxEventBytes`.
        package var maxLineLength: Int
        /// At most this many rejected lines: the next one stops reading right there; nil: no limit.
        package var maxRejects: Int?
        /// Where rejected lines go.
        package var rejectsPath: String
        /// The input's format; ``SourceFormat/auto`` decides per line.
        package var format: SourceFormat
        /// The feature of events that name none and that no tracking plan claims.
        package var defaultFeature: String?

        /// Options with 1 MiB lines, no reject limit, the format decided per line.
        package init(
            validator: EventValidator,
            maxLineLength: Int = 1 << 20,
            maxRejects: Int? = nil,
            rejectsPath: String,
            format: SourceFormat = .auto,
            defaultFeature: String? = nil
        ) {
            self.validator = validator
            self.maxLineLength = maxLineLength
            self.maxRejects = maxRejects
            self.rejectsPath = rejectsPath
            self.format = format
            self.defaultFeature = defaultFeature
        }
    }

    /// Where a run is, for progress displays.
    package struct Progress: Sendable {
        /// The input being read.
        package var source: String
        /// Bytes read from it.
        package var bytesRead: Int
        /// Its size, when known (not for pipes).
        package var totalBytes: Int?
        /// Events accepted so far, all inputs.
        package var accepted: Int
        /// Seconds since the run started.
        package var elapsedSeconds: Double
    }

    /// Why the run could not read an input: `open events.ndjson: No such file or directory`, never
    /// what was read.
    package struct InputError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What failed, stable across releases. A struct, so that a kind added later breaks no
        /// `switch`.
        package struct Code: Sendable, Hashable, CustomStringConvertible {
            private enum Base: String {
                case cannotOpen = "cannot_open"
                case cannotRead = "cannot_read"
            }
            private let base: Base
            private init(_ base: Base) { self.base = base }

            /// The input could not be opened (missing, unreadable): nothing of it was read.
            package static let cannotOpen = Code(.cannotOpen)
            /// Reading failed part-way (an I/O error): what was read before is ingested.
            package static let cannotRead = Code(.cannotRead)

            /// The stable snake_case name (`cannot_open`).
            package var description: String { base.rawValue }
        }

        /// What failed.
        package internal(set) var code: Code
        /// The input, as given (`-` for standard input).
        package internal(set) var source: String
        /// The system call that failed, with its `errno`.
        package internal(set) var underlying: IOError

        init(_ code: Code, source: String, underlying: IOError) {
            self.code = code
            self.source = source
            self.underlying = underlying
        }

        package var description: String { underlying.description }
    }

    private let options: Options
    private let pipeline: EventPipeline
    private let progress: ((Progress) -> Void)?
    private let decoder: FormatDecoder
    private let intake: EventIntake
    private let rejects: FileRejectSink
    /// Rejects of the chunk being read, stored once it is.
    private var pendingRejects: [Reject] = []
    private var rejectsStored = false
    private var report = IngestReport()
    private var pending: [EventEnvelope] = []
    private var stopRequested = false
    private var diagnosis: InputDiagnosis?
    private let io = BlockingIO(label: "tally.ingest.read")
    /// Requested by ``stop()``: ends a wait for input.
    private let interruption = Interruption()

    /// A job feeding `pipeline`; `progress` is called after each chunk read.
    package init(options: Options, pipeline: EventPipeline, progress: ((Progress) -> Void)? = nil) {
        self.options = options
        self.pipeline = pipeline
        self.progress = progress
        decoder = FormatDecoder(format: options.format)
        intake = EventIntake(validator: options.validator, defaultFeature: options.defaultFeature, arrival: .keepGiven)
        rejects = FileRejectSink(file: options.rejectsPath)
        report.validation = options.validator.registry == nil ? "structural" : "registry"
    }

    /// Ingests `sources` in order (`-` is stdin). Returns once every accepted event was handed to
    /// the pipeline; the caller shuts the pipeline down and reads what the sinks stored.
    package func run(sources: [String], shouldStop: () -> Bool = { false }) async throws -> IngestReport {
        let started = Date()
        defer { report.elapsedSeconds = Date().timeIntervalSince(started) }
        for source in sources where !stopRequested {
            report.sources.append(source)
            do {
                try await ingest(source, started: started, shouldStop: shouldStop)
            } catch {
                // The rejects of the lines read before the failure are kept all the same.
                try? await storeRejects()
                throw error
            }
        }
        try await storeRejects()
        if rejectsStored { report.rejectsFile = options.rejectsPath }
        report.interrupted = stopRequested && !report.rejectLimitReached
        report.elapsedSeconds = Date().timeIntervalSince(started)
        return report
    }

    /// Stops reading, from any thread: a wait for input ends within 100 ms, and ``run(sources:shouldStop:)``
    /// returns (marked interrupted) once everything accepted so far was handed to the pipeline.
    package func stop() {
        interruption.request()
    }

    private func ingest(_ source: String, started: Date, shouldStop: () -> Bool) async throws {
        let descriptor = source == "-" ? STDIN_FILENO : open(source, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw InputError(.cannotOpen, source: source, underlying: IOError(.open, path: source, errno: errno))
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var info = stat()
        let size = fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
        var reader = LineReader(descriptor: descriptor, path: source, maxLineLength: options.maxLineLength)
        let name = source == "-" ? "<stdin>" : source
        diagnosis = InputDiagnosis(report: report)
        defer {
            if let warning = diagnosis?.warning(source: name, report: report) { report.warnings.append(warning) }
        }
        var more = true
        while more {
            let now = Timestamp.now().truncatedToMicroseconds
            do {
                more = try await reader.readChunk(on: io, interruption: interruption) { line in
                    try self.process(line, source: name, receivedAt: now)
                }
            } catch let error as IOError where error.path == source {
                // Only the input's own read: any other IOError stays one.
                throw InputError(.cannotRead, source: source, underlying: error)
            } catch is CancellationError {
                // Stopped while waiting for input: nothing of this chunk was accepted.
                stopRequested = true
                break
            }
            try await storeRejects()
            if !pending.isEmpty {
                try await pipeline.send(contentsOf: pending)
                pending.removeAll(keepingCapacity: true)
            }
            progress?(
                Progress(
                    source: name,
                    bytesRead: reader.bytesRead,
                    totalBytes: size,
                    accepted: report.accepted,
                    elapsedSeconds: Date().timeIntervalSince(started)
                )
            )
            if shouldStop() { stopRequested = true }
            if stopRequested { break }
        }
        report.bytes += reader.bytesRead
    }

    private func process(_ line: LineReader.Line, source: String, receivedAt: Timestamp) throws {
        // The rest of a chunk read before the limit was reached: not read, as far as anyone can tell.
        if report.rejectLimitReached { return }
        report.lines += 1
        if let length = line.oversizedLength {
            try reject(
                source,
                line.number,
                EventViolation(
                    .tooLarge,
                    path: "$",
                    message:
                        "line of \(length) bytes exceeds the \(options.maxLineLength)-byte limit (--max-line-bytes)"
                ),
                raw: nil,
                at: receivedAt
            )
            return
        }
        if line.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
            report.blankLines += 1
            return
        }
        diagnosis?.observe(line.bytes)
        let decoded = decoder.decode(line.bytes)
        // Taken out of the list one by one, so each envelope is uniquely owned when `accept`
        // stamps and validates it (iterating the list kept a second reference, and every write
        // then copied the envelope's storage).
        var results = decoded.results
        results.reverse()
        while let result = results.popLast(), !report.rejectLimitReached {
            switch result {
            case .success(let event):
                try accept(event, format: decoded.format, source: source, line: line, receivedAt: receivedAt)
            case .failure(let error):
                try reject(
                    source,
                    line.number,
                    EventViolation(ReasonCode(error.code), path: error.path, message: error.message),
                    raw: line.bytes,
                    at: receivedAt
                )
            }
        }
    }

    private func accept(
        _ decoded: consuming EventEnvelope,
        format: SourceFormat,
        source: String,
        line: LineReader.Line,
        receivedAt: Timestamp
    ) throws {
        switch intake.admit(decoded, format: format, receivedAt: receivedAt) {
        case .accepted(let event, let placed):
            report.accepted += 1
            if placed { report.futurePlaced += 1 }
            pending.append(event)
        case .rejected(var violation, _):
            if violation.code == .tooLarge, violation.path == "$" { violation.message += " (--max-event-bytes)" }
            try reject(source, line.number, violation, raw: line.bytes, at: receivedAt)
        }
    }

    private func reject(
        _ source: String,
        _ line: Int,
        _ violation: EventViolation,
        raw: UnsafeBufferPointer<UInt8>?,
        at time: Timestamp
    ) throws {
        report.rejected[violation.code, default: 0] += 1
        // The line as read, so that it can be fixed and fed back.
        let rejected = Reject(
            content: raw.map { .bytes(Array($0)) } ?? .nothing,
            reason: Reject.Reason(violation),
            origin: .line(file: source, line: line),
            failedAt: time
        )
        pendingRejects.append(rejected)
        // The report names them; the line itself is in the rejects file.
        var named = rejected
        named.content = .nothing
        if report.firstRejects.count < IngestReport.firstRejectsLimit { report.firstRejects.append(named) }
        if let maxRejects = options.maxRejects, report.rejectedCount > maxRejects {
            report.rejectLimitReached = true
            report.stoppedAt = named
            stopRequested = true
        }
    }

    /// Stores the rejects of the chunk read (written and fsynced).
    private func storeRejects() async throws {
        guard !pendingRejects.isEmpty else { return }
        try await rejects.store(pendingRejects)
        pendingRejects.removeAll(keepingCapacity: true)
        rejectsStored = true
    }
}
