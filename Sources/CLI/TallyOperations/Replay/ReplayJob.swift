import Foundation
import TallyCore
package import TallyFileStore
package import TallyPipeline
import TallySchema

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Replays dead-letter and rejects files into a sink (`tally replay`), one file at a time: its
/// events that are valid now are stored, then the file is rewritten with only what still fails.
///
/// Per file: (1) with the file store as the sink, the store's files of the days concerned are read
/// for the events it already holds, which are not appended again; (2) the lines are read, their
/// events decoded and checked against the tracking plans, and the valid ones written to the sink in
/// batches, then flushed (durable); (3) holding the file's lock (``FileLock``, which every writer of
/// dead letters and rejects takes), the lines appended meanwhile are copied as they are, and the
/// new file, holding the lines still refused (with their new reason) and those, is renamed over the
/// old one (removed when empty). A replay stopped anywhere before (3) leaves the file as it was, and
/// running it again stores nothing twice: event ids deduplicate in PostgreSQL, and step (1) in
/// the file store.
package final class ReplayJob {
    /// Settings of one run.
    package struct Options: Sendable {
        /// Decodes and checks each kept event.
        package var decoder: ReplayDecoder
        /// The file store, when it is the sink: events it already holds are not appended again.
        package var fileStore: FileStoreLayout?
        /// Decide and report, change nothing.
        package var dryRun: Bool
        /// Events per write.
        package var batchSize: Int

        /// Options for a run.
        package init(decoder: ReplayDecoder, fileStore: FileStoreLayout?, dryRun: Bool = false, batchSize: Int = 5_000)
        {
            self.decoder = decoder
            self.fileStore = fileStore
            self.dryRun = dryRun
            self.batchSize = batchSize
        }
    }

    private let options: Options
    private let sink: any EventSink
    private let io = BlockingIO(label: "tally.replay")
    /// Events written to the file store by this run, so that two lines holding one event append it once.
    private var written = Set<EventID>()
    /// Called with a file's path once its events are stored, before it is rewritten (tests stop a
    /// replay there).
    package var beforeRewrite: (@Sendable (String) throws -> Void)?

    /// A job writing to `sink`.
    package init(options: Options, sink: any EventSink) {
        self.options = options
        self.sink = sink
    }

    /// Replays `paths` in order; `shouldStop` is asked between chunks. Throws what the sink threw
    /// (after retrying what may succeed later): that file and those after it are left as they were.
    package func run(paths: [String], shouldStop: @Sendable () -> Bool = { false }) async throws -> ReplayReport {
        let started = Date()
        var report = ReplayReport()
        report.dryRun = options.dryRun
        defer { report.elapsedSeconds = Date().timeIntervalSince(started) }
        for path in paths {
            var file = ReplayReport.File(path: path)
            defer { report.files.append(file) }
            let finished = try await replay(path, into: &file, shouldStop: shouldStop)
            if !finished {
                report.interrupted = true
                break
            }
        }
        report.elapsedSeconds = Date().timeIntervalSince(started)
        return report
    }

    /// Replays one file; false when stopped before its end.
    private func replay(
        _ path: String,
        into file: inout ReplayReport.File,
        shouldStop: @Sendable () -> Bool
    ) async throws -> Bool {
        let descriptor = systemOpen(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw IOError(.open, path: path, errno: errno) }
        defer { close(descriptor) }
        if !options.dryRun { Self.removeAbandonedRewrites(of: path) }
        let now = Timestamp.now().truncatedToMicroseconds
        // Up to the last whole line now: a line being appended is left for the locked pass.
        var survey = StoreFileScanner(descriptor: descriptor, path: path, includeUnterminated: false)
        var candidates: (events: [CivilDate: Set<EventID>], identities: [CivilDate: Set<EventID>]) = ([:], [:])
        try survey.scanAll { line in
            guard options.fileStore != nil, case .valid(let events)? = outcome(line.bytes, now: now)?.1 else { return }
            for event in events {
                if event.kind.isIdentity {
                    candidates.identities[event.occurredAt.utcDate, default: []].insert(event.eventID)
                } else {
                    candidates.events[event.occurredAt.utcDate, default: []].insert(event.eventID)
                }
            }
        }
        let stored =
            try options.fileStore.map {
                try FileStoreReader(directory: $0.root).storedIDs(
                    events: candidates.events,
                    identities: candidates.identities
                )
            } ?? []
        let replacement = options.dryRun ? nil : try FileReplacement(replacing: path)
        defer { replacement?.discard() }
        var scanner = StoreFileScanner(
            descriptor: descriptor,
            path: path,
            limit: survey.end,
            includeUnterminated: false
        )
        var pending: [EventEnvelope] = []
        var more = true
        while more {
            var local = file
            more = try scanner.readChunk { line in
                try self.process(line, now: now, stored: stored, into: &local, pending: &pending, replacement)
            }
            file = local
            // Whole batches as they fill, the rest at the end.
            while pending.count >= options.batchSize || (!more && !pending.isEmpty) {
                let batch = Array(pending.prefix(options.batchSize))
                try await write(batch)
                pending.removeFirst(batch.count)
            }
            if more && shouldStop() {
                file.outcome = .notFinished
                return false
            }
        }
        guard file.replayed > 0 || file.newReasons > 0, let replacement else { return true }
        try await flush()
        try beforeRewrite?(path)
        // The lock may be waited for, and the rename fsynced: off the cooperative threads.
        file = try await io.run { [file, scanner] _ in
            var file = file
            try Self.swap(replacement, descriptor: descriptor, path: path, from: scanner, into: &file)
            return file
        }
        return true
    }

    /// Removes what a replay of `path` killed mid-rewrite left beside it (the caller holds the
    /// store's ``MaintenanceLock``, so no rewrite of it is in progress).
    private static func removeAbandonedRewrites(of path: String) {
        let directory = Directory.parent(of: path)
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        for entry in (try? Directory.list(directory)) ?? []
        where FileReplacement.isTemporary(entry) && entry.hasPrefix("." + name + ".") {
            unlink(directory + "/" + entry)
        }
    }

    /// Sorts one line: replayed (its events go to `pending`), or kept in the new file.
    private func process(
        _ line: StoreFileScanner.Line,
        now: Timestamp,
        stored: Set<EventID>,
        into file: inout ReplayReport.File,
        pending: inout [EventEnvelope],
        _ replacement: FileReplacement?
    ) throws {
        file.lines += 1
        guard let (failed, result) = outcome(line.bytes, now: now) else {
            file.unrecognized += 1
            try Self.copy(line.bytes, to: replacement)
            return
        }
        switch result {
        case nil:
            file.withoutEvent += 1
            try Self.copy(line.bytes, to: replacement)
        case .invalid(let violation)?:
            file.stillFailing[violation.code, default: 0] += 1
            if file.firstStillFailing.count < IngestReport.firstRejectsLimit {
                file.firstStillFailing.append(
                    Reject(
                        content: .nothing,  // named only: the line stays in the file
                        reason: Reject.Reason(violation),
                        origin: .line(file: file.path, line: line.number),
                        failedAt: now
                    )
                )
            }
            let rewritten = failed.rewritten(
                reason: violation.code.rawValue,
                path: violation.path,
                message: violation.message
            )
            if !rewritten.elementsEqual(line.bytes) { file.newReasons += 1 }
            try rewritten.withUnsafeBufferPointer { try Self.copy($0, to: replacement) }
        case .valid(let events)?:
            file.replayed += 1
            file.events += events.count
            for event in events {
                if stored.contains(event.eventID)
                    || (options.fileStore != nil && !written.insert(event.eventID).inserted)
                {
                    file.alreadyStored += 1
                } else if !options.dryRun {
                    pending.append(event)
                }
            }
        }
    }

    /// The line unwrapped and what its event is now (nil: it keeps none); nil when it is not a
    /// dead-letter or rejects line.
    private func outcome(_ bytes: UnsafeBufferPointer<UInt8>, now: Timestamp) -> (FailedLine, ReplayDecoder.Outcome?)? {
        guard let failed = FailedLine.parse(bytes) else { return nil }
        guard let event = failed.event else { return (failed, nil) }
        // A collector's reject arrived at `failed_at`; dead letters and ingest rejects carry their times.
        let arrivedAt = failed.kind == .collectorReject ? failed.failedAt : nil
        return (failed, options.decoder.decode(event, arrivedAt: arrivedAt, now: now))
    }

    private static func copy(_ bytes: UnsafeBufferPointer<UInt8>, to replacement: FileReplacement?) throws {
        guard let replacement else { return }
        try replacement.append(bytes)
        try replacement.append([UInt8(ascii: "\n")])
    }

    /// Holding the file's lock: copies what was appended since `scanner` stopped, then renames the
    /// new file over the old one (or removes the old one when nothing remains).
    private static func swap(
        _ replacement: FileReplacement,
        descriptor: Int32,
        path: String,
        from scanner: StoreFileScanner,
        into file: inout ReplayReport.File
    ) throws {
        try FileLock.lock(descriptor, path: path)
        defer { FileLock.unlock(descriptor) }
        guard FileLock.isCurrent(descriptor, path: path) else {
            throw IOError(.rename, path: path, errno: ESTALE)
        }
        var tail = StoreFileScanner(
            descriptor: descriptor,
            path: path,
            from: scanner.end,
            firstNumber: scanner.nextNumber,
            includeUnterminated: true
        )
        try tail.scanAll { line in
            file.appendedMeanwhile += 1
            try copy(line.bytes, to: replacement)
        }
        if file.remaining == 0 {
            replacement.discard()
            if unlink(path) != 0 { throw IOError(.unlink, path: path, errno: errno) }
            try Directory.sync(Directory.parent(of: path))
            file.outcome = .removed
        } else {
            try replacement.commit()
            file.outcome = .rewritten
        }
    }

    /// Writes `events`, retrying what may succeed later (a lost connection) with backoff.
    private func write(_ events: [EventEnvelope]) async throws {
        var attempt = 0
        while true {
            attempt += 1
            do {
                try await sink.write(events)
                return
            } catch {
                guard attempt < 5, SinkErrorClass.of(error) == .transient, !(error is CancellationError) else {
                    throw error
                }
                try await Task.sleep(for: .milliseconds(200 << attempt))
            }
        }
    }

    private func flush() async throws {
        try await sink.flush()
    }
}
