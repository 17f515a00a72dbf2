import Foundation
import TallyCore
import TallyFileStore
import TallyPipeline
import TallyReports
import Testing

/// `tally compact`'s library: duplicates and torn lines out, atomic swaps, writers that keep
/// appending, retention by day.
@Suite("File store compaction")
struct CompactionTests {
    static let day = Timestamp(rfc3339: "2026-11-22T10:00:00Z")!

    static func events(_ count: Int, at time: Timestamp = day, from start: Int = 0) -> [EventEnvelope] {
        FileStoreTests.events(count, at: time, from: start)
    }

    static func write(_ events: [EventEnvelope], to directory: String) async throws {
        let sink = FileSink(directory: directory)
        try await sink.write(events)
        try await sink.shutdown()
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func file(_ directory: String, _ day: String = "2026-11-22") -> String {
        directory + "/events/events-\(day).ndjson"
    }

    @Test("copies of events (a re-run ingest) are removed: the file is what one write makes")
    func duplicatesRemoved() async throws {
        let directory = try TemporaryDirectory()
        let reference = try TemporaryDirectory()
        let written = Self.events(500)
        try await Self.write(written, to: directory.path)
        try await Self.write(written, to: directory.path)
        try await Self.write(Array(written[100..<200]), to: directory.path)
        try await Self.write(written, to: reference.path)

        let report = try FileStoreCompactor(directory: directory.path).run(.init())
        #expect(report.duplicatesRemoved == 600)
        #expect(report.linesKept == 500)
        #expect(report.filesRewritten == [Self.file(directory.path)])
        #expect(report.tornLines.isEmpty)
        #expect(try Self.bytes(Self.file(directory.path)) == Self.bytes(Self.file(reference.path)))
        #expect(try FileStoreReader(directory: directory.path).readAll().events == written)

        // Nothing changed since: the next compaction reads nothing.
        let again = try FileStoreCompactor(directory: directory.path).run(.init())
        #expect(again.days == 0 && again.filesRewritten.isEmpty)
    }

    @Test("copies across a day's segments are removed; a segment left empty is deleted")
    func duplicatesAcrossSegments() async throws {
        let directory = try TemporaryDirectory()
        let written = Self.events(60)
        for _ in 0..<2 {
            let sink = FileSink(directory: directory.path, configuration: .init(maxFileSize: 4_000))
            for start in stride(from: 0, to: 60, by: 10) { try await sink.write(Array(written[start..<start + 10])) }
            try await sink.shutdown()
        }
        let layout = FileStoreLayout(root: directory.path)
        let before = try layout.eventSegments().count
        let report = try FileStoreCompactor(directory: directory.path).run(.init())
        #expect(report.duplicatesRemoved == 60)
        #expect(try layout.eventSegments().count < before)
        #expect(try FileStoreReader(directory: directory.path).readAll().events == written)
    }

    @Test("torn lines are removed and reported with file and line; a whole event without newline is kept")
    func tornLinesRemoved() async throws {
        let directory = try TemporaryDirectory()
        let path = Self.file(directory.path)
        let first = Self.events(3)
        try await Self.write(first, to: directory.path)
        // A crash mid-write: half an event; the next writer ends that line and goes on.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(Self.events(1, from: 90)[0].ndjsonLine.prefix(70)))
        handle.closeFile()
        let second = Self.events(2, from: 10)
        try await Self.write(second, to: directory.path)
        // Then another crash, this time after a whole event but before its newline.
        let last = Self.events(1, from: 20)
        let tail = try #require(FileHandle(forWritingAtPath: path))
        tail.seekToEndOfFile()
        tail.write(Data(last[0].ndjsonLine.dropLast()))
        tail.closeFile()

        let report = try FileStoreCompactor(directory: directory.path).run(.init())
        #expect(report.tornLines.map(\.line) == [4])
        #expect(report.tornLines.first?.path == path && report.tornLines.first?.bytes == 70)
        let (events, read) = try FileStoreReader(directory: directory.path).readAll()
        #expect(events == first + second + last, "the whole event is kept, its line ended")
        #expect(read.tornLines == 0 && read.unreadableLines.isEmpty)
        #expect(try Self.bytes(path).last == UInt8(ascii: "\n"))
    }

    @Test("a crash between writing the new file and renaming it leaves the original intact")
    func crashBeforeRenameLeavesOriginal() async throws {
        struct Crash: Error {}
        let directory = try TemporaryDirectory()
        let written = Self.events(200)
        try await Self.write(written, to: directory.path)
        try await Self.write(written, to: directory.path)
        let path = Self.file(directory.path)
        let original = try Self.bytes(path)

        var compactor = FileStoreCompactor(directory: directory.path)
        compactor.beforeReplacing = { _ in throw Crash() }
        #expect(throws: Crash.self) { try compactor.run(.init()) }
        #expect(try Self.bytes(path) == original, "the day file is as it was")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/events")
        #expect(names == ["events-2026-11-22.ndjson"], "the new file was removed")

        // A crash that killed the process leaves its temporary file: the next run removes it.
        let abandoned = directory.path + "/events/.events-2026-11-22.ndjson.4242-abc.tmp"
        _ = FileManager.default.createFile(atPath: abandoned, contents: Data(original.prefix(100)))
        let report = try FileStoreCompactor(directory: directory.path).run(.init())
        #expect(report.abandonedTemporaryFiles == 1)
        #expect(!FileManager.default.fileExists(atPath: abandoned))
        #expect(report.duplicatesRemoved == 200)
        #expect(try FileStoreReader(directory: directory.path).readAll().events == written)
    }

    @Test("a writer keeping its file open across compactions loses nothing: its appends land in the new file")
    func writerAcrossCompactions() async throws {
        let directory = try TemporaryDirectory()
        let written = Self.events(1_000)
        // One sink all along: its descriptor of the day file outlives every rewrite.
        let sink = FileSink(directory: directory.path)
        for start in stride(from: 0, to: written.count, by: 100) {
            // Each batch twice (a retried write), so that each compaction replaces the file.
            for _ in 0..<2 { try await sink.write(Array(written[start..<start + 100])) }
            let report = try FileStoreCompactor(directory: directory.path).run(.init())
            #expect(report.filesRewritten.count == 1 && report.duplicatesRemoved == 100)
        }
        try await sink.shutdown()
        #expect(try FileStoreReader(directory: directory.path).readAll().events == written)
    }

    @Test("a writer appending all along while compactions run on other threads loses nothing")
    func concurrentWriterLosesNothing() async throws {
        let directory = try TemporaryDirectory()
        let old = Self.events(2_000)
        try await Self.write(old, to: directory.path)
        try await Self.write(old, to: directory.path)
        let fresh = Self.events(2_000, from: 10_000)
        let sink = FileSink(directory: directory.path)
        let path = directory.path
        let writing = Locked(true)
        let compactions = Task.detached {
            var rewritten = 0
            while writing.withLock({ $0 }) {
                rewritten += try FileStoreCompactor(directory: path).run(.init()).filesRewritten.count
            }
            return rewritten
        }
        // Each batch twice (a retried write), so that compactions have copies to remove.
        for start in stride(from: 0, to: fresh.count, by: 50) {
            for _ in 0..<2 { try await sink.write(Array(fresh[start..<start + 50])) }
            await Task.yield()
        }
        try await sink.shutdown()
        writing.withLock { $0 = false }
        #expect(try await compactions.value >= 1)
        _ = try FileStoreCompactor(directory: directory.path).run(.init())
        let stored = try FileStoreReader(directory: directory.path).readAll().events
        #expect(stored.count == old.count + fresh.count)
        #expect(Set(stored.map(\.eventID)) == Set((old + fresh).map(\.eventID)))
    }

    @Test("retention deletes exactly the days that ended before the bound, and dead letters only when asked")
    func retentionByDay() async throws {
        let directory = try TemporaryDirectory()
        let now = Timestamp(rfc3339: "2026-11-22T10:00:00Z")!
        var written: [EventEnvelope] = []
        for daysAgo in [0, 1, 89, 90, 91, 92, 200] {
            let time = now.advanced(byNanoseconds: -Int64(daysAgo) * 86_400 * 1_000_000_000)
            written += Self.events(2, at: time, from: daysAgo * 10)
        }
        try await Self.write(written, to: directory.path)
        let deadLetters = FileRejectSink(directory: directory.path)
        for daysAgo in [5, 40] {
            try await deadLetters.store(
                Self.events(1).map {
                    Reject(
                        content: .event($0),
                        reason: Reject.Reason(code: "connection", message: "connection refused"),
                        origin: .sink(name: "postgres", attempts: 3),
                        failedAt: now.advanced(byNanoseconds: -Int64(daysAgo) * 86_400 * 1_000_000_000)
                    )
                }
            )
        }
        // 90 days before 2026-11-22T10:00Z is 2026-08-24T10:00Z: 2026-08-23 (91 days ago) ended
        // before it and goes; 2026-08-24 (90 days ago) has events after it and stays.
        #expect(FileStoreCompactor.firstKeptDay(seconds: 90 * 86_400, now: now).isoString == "2026-08-24")
        let report = try FileStoreCompactor(directory: directory.path).run(
            .init(retainSeconds: 90 * 86_400, now: now)
        )
        let names = { (sub: String) in
            try FileManager.default.contentsOfDirectory(atPath: directory.path + "/" + sub).sorted()
        }
        #expect(
            try names("events") == [
                "events-2026-08-24.ndjson", "events-2026-08-25.ndjson", "events-2026-11-21.ndjson",
                "events-2026-11-22.ndjson",
            ]
        )
        #expect(report.expiredFiles.count == 3)
        #expect(try names("dead-letter").count == 2, "dead letters stay without --retain-failed")

        let failed = try FileStoreCompactor(directory: directory.path).run(
            .init(retainFailedSeconds: 30 * 86_400, now: now)
        )
        #expect(failed.expiredFiles == [directory.path + "/dead-letter/dead-letter-2026-10-13.ndjson"])
        #expect(try names("dead-letter") == ["dead-letter-2026-11-17.ndjson"])
    }

    @Test("a dry run reports and changes nothing")
    func dryRun() async throws {
        let directory = try TemporaryDirectory()
        let written = Self.events(100)
        try await Self.write(written, to: directory.path)
        try await Self.write(written, to: directory.path)
        let path = Self.file(directory.path)
        let original = try Self.bytes(path)
        let report = try FileStoreCompactor(directory: directory.path).run(
            .init(retainSeconds: 3_600, dryRun: true, now: Self.day.advanced(byNanoseconds: 86_400_000_000_000 * 2))
        )
        #expect(report.duplicatesRemoved == 100)
        #expect(report.expiredFiles == [path])
        #expect(try Self.bytes(path) == original)
    }

    @Test("summaries are the same before and after compaction")
    func summariesEqual() async throws {
        let directory = try TemporaryDirectory()
        var written: [EventEnvelope] = []
        for day in 0..<5 {
            written += Self.events(
                300,
                at: Self.day.advanced(byNanoseconds: Int64(day) * 86_400_000_000_000),
                from: day * 1_000
            )
        }
        try await Self.write(written, to: directory.path)
        try await Self.write(Array(written.shuffled().prefix(700)), to: directory.path)
        let summarizer = FileStoreSummarizer(directory: directory.path)
        var before: [SummaryQuery.Grouping: Summary] = [:]
        for grouping in SummaryQuery.Grouping.allCases {
            before[grouping] = try summarizer.summarize(SummaryQuery(grouping: grouping))
        }
        #expect(before[.feature]?.duplicates == 700)

        _ = try FileStoreCompactor(directory: directory.path).run(.init())
        for grouping in SummaryQuery.Grouping.allCases {
            let after = try summarizer.summarize(SummaryQuery(grouping: grouping))
            #expect(after.duplicates == 0)
            #expect(after.rows.sorted { $0.key < $1.key } == before[grouping]!.rows.sorted { $0.key < $1.key })
            #expect(after.total == before[grouping]!.total)
        }
    }
}
