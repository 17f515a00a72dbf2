import Foundation
import TallyCore
import TallyFileStore
import TallyPipeline
import Testing

@Suite("File store")
struct FileStoreTests {
    static let day1 = Timestamp(rfc3339: "2026-11-21T23:59:59.999999Z")!
    static let day2 = Timestamp(rfc3339: "2026-11-22T00:00:00Z")!

    static func events(_ count: Int, at time: Timestamp, from start: Int = 0) -> [EventEnvelope] {
        var generator = UUIDv7Generator(seed: UInt64(start))
        return (start..<start + count).map { index in
            EventEnvelope(
                eventID: generator.next(at: time),
                name: "episode_list_episode_selected",
                feature: "episode",
                properties: ["episode_id": .string("ep-\(index)"), "position": .integer(Int64(index))],
                occurredAt: time,
                anonymousID: "install-1"
            )
        }
    }

    @Test("events land in one file per UTC day of occurred_at and read back equal, in order")
    func dailyFilesRoundTrip() async throws {
        let directory = try TemporaryDirectory()
        let sink = FileSink(directory: directory.path)
        let written = Self.events(3, at: Self.day1) + Self.events(4, at: Self.day2, from: 3)
        try await sink.write(written)
        try await sink.shutdown()
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/events").sorted()
        #expect(names == ["events-2026-11-21.ndjson", "events-2026-11-22.ndjson"])
        let (events, report) = try FileStoreReader(directory: directory.path).readAll()
        #expect(events == written)
        #expect(report.files == 2)
        #expect(report.tornLines == 0 && report.unreadableLines.isEmpty)
    }

    @Test("a day file that reaches the size limit continues in the next segment")
    func rotationBySize() async throws {
        let directory = try TemporaryDirectory()
        let sink = FileSink(directory: directory.path, configuration: .init(maxFileSize: 2_000))
        var written: [EventEnvelope] = []
        for batch in 0..<10 {
            let events = Self.events(5, at: Self.day2, from: batch * 5)
            written += events
            try await sink.write(events)
        }
        try await sink.shutdown()
        let segments = try FileStoreLayout(root: directory.path).eventSegments()
        #expect(segments.count > 3)
        #expect(segments.map(\.number) == Array(0..<segments.count))
        for segment in segments.dropLast() {
            let size = try FileManager.default.attributesOfItem(atPath: segment.path)[.size] as! Int
            #expect(size <= 2_000)
        }
        #expect(try FileStoreReader(directory: directory.path).readAll().events == written)
    }

    @Test("a torn last line is skipped and counted; the next writer starts on a fresh line")
    func tornLastLine() async throws {
        let directory = try TemporaryDirectory()
        let first = Self.events(3, at: Self.day2)
        let sink = FileSink(directory: directory.path)
        try await sink.write(first)
        try await sink.shutdown()
        let path = directory.path + "/events/events-2026-11-22.ndjson"
        // A crash in the middle of a write: half an event, no newline.
        let torn = Array(Self.events(1, at: Self.day2, from: 99)[0].ndjsonLine.prefix(70))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(torn))
        handle.closeFile()

        var (events, report) = try FileStoreReader(directory: directory.path).readAll()
        #expect(events == first)
        #expect(report.tornLines == 1)
        #expect(report.unreadableLines.isEmpty)

        let second = Self.events(2, at: Self.day2, from: 10)
        let restarted = FileSink(directory: directory.path)
        try await restarted.write(second)
        try await restarted.shutdown()
        (events, report) = try FileStoreReader(directory: directory.path).readAll()
        #expect(events == first + second)
        #expect(report.tornLines == 0)
        #expect(report.unreadableLines.map(\.line) == [4], "the old fragment is reported with its line number")
    }

    @Test("an unwritable data directory fails the write with an error naming the path")
    func unwritableDirectory() async throws {
        let directory = try TemporaryDirectory()
        let blocker = directory.path + "/not-a-directory"
        _ = FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8))
        let sink = FileSink(directory: blocker + "/data")
        let error = await #expect(throws: IOError.self) { try await sink.write(Self.events(1, at: Self.day2)) }
        #expect(error?.description.contains(blocker) == true)
    }

    @Test("through the pipeline: flush() makes every accepted event readable from the store")
    func pipelineIntoFileStore() async throws {
        let directory = try TemporaryDirectory()
        let pipeline = EventPipeline(
            sinks: [FileSink(directory: directory.path)],
            deadLetters: FileRejectSink(directory: directory.path),
            configuration: PipelineConfiguration(maxBatchSize: 64)
        )
        let written = Self.events(1_000, at: Self.day2)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pipeline.run() }
            try await pipeline.send(contentsOf: written)
            await pipeline.flush()
            #expect(try FileStoreReader(directory: directory.path).readAll().events == written)
            pipeline.shutdown()
            try await group.waitForAll()
        }
    }
}
