import Foundation
import TallyCore
import TallyFileStore
import TallyPipeline
import Testing

/// The file store's reject sink: dead letters and the collector's rejects in day files of their
/// own, `tally ingest`'s in the one file of its run, each a JSON line that reads back as it was.
@Suite("File reject sink")
struct FileRejectSinkTests {
    static let day1 = Timestamp(rfc3339: "2026-11-21T23:59:59.999Z")!
    static let day2 = Timestamp(rfc3339: "2026-11-22T08:00:00Z")!

    static func deadLetter(_ event: EventEnvelope, at time: Timestamp) -> Reject {
        Reject(
            content: .event(event),
            reason: Reject.Reason(code: "connection", message: "connection refused"),
            origin: .sink(name: "postgres", attempts: 5),
            failedAt: time
        )
    }

    static func collectorReject(_ index: Int, at time: Timestamp) -> Reject {
        Reject(
            content: .bytes(Array(#"{"event":"Order Completed"}"#.utf8)),
            reason: Reject.Reason(code: "missing_field", path: "$.timestamp", message: "required"),
            origin: .request(id: "r-\(index)", index: index, source: "web"),
            failedAt: time
        )
    }

    static func lines(_ path: String) throws -> [Reject?] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            Reject(jsonLine: Array($0.utf8))
        }
    }

    @Test("dead letters and the collector's rejects go to their day files, each line the reject as it was")
    func dayFiles() async throws {
        let directory = try TemporaryDirectory()
        let sink = FileRejectSink(directory: directory.path)
        let events = FileStoreTests.events(3, at: Self.day2)
        let rejects = [
            Self.deadLetter(events[0], at: Self.day1), Self.collectorReject(0, at: Self.day2),
            Self.deadLetter(events[1], at: Self.day2), Self.collectorReject(1, at: Self.day1),
            Self.deadLetter(events[2], at: Self.day2),
        ]
        try await sink.store(rejects)
        try await sink.store([Self.collectorReject(2, at: Self.day2)])
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/dead-letter").sorted()
        #expect(
            files == [
                "collector-rejects-2026-11-21.ndjson", "collector-rejects-2026-11-22.ndjson",
                "dead-letter-2026-11-21.ndjson", "dead-letter-2026-11-22.ndjson",
            ]
        )
        let base = directory.path + "/dead-letter/"
        #expect(try Self.lines(base + "dead-letter-2026-11-21.ndjson") == [rejects[0]])
        #expect(try Self.lines(base + "dead-letter-2026-11-22.ndjson") == [rejects[2], rejects[4]])
        #expect(try Self.lines(base + "collector-rejects-2026-11-21.ndjson") == [rejects[3]])
        #expect(
            try Self.lines(base + "collector-rejects-2026-11-22.ndjson") == [
                rejects[1], Self.collectorReject(2, at: Self.day2),
            ]
        )
        #expect(await sink.isReachable())
    }

    @Test("one file for a run: created with its directory on the first reject, appended after a torn line")
    func oneFile() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/rejects/ingest-20261122T080000Z.ndjson"
        let sink = FileRejectSink(file: path)
        try await sink.store([])
        #expect(!FileManager.default.fileExists(atPath: path), "no file without a reject")
        let first = Reject(
            content: .bytes(Array("{oops".utf8)),
            reason: Reject.Reason(code: "malformed_json", path: "$", message: "unexpected end"),
            origin: .line(file: "events.ndjson", line: 2),
            failedAt: Self.day2
        )
        try await sink.store([first, Self.deadLetter(FileStoreTests.events(1, at: Self.day2)[0], at: Self.day1)])
        // A writer killed mid-line: the next append ends it first.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"torn":"#.utf8))
        try handle.close()
        try await sink.store([first])
        let lines = try Self.lines(path)
        #expect(lines.count == 4)
        #expect(lines[0] == first && lines[3] == first)
        #expect(lines[1]?.origin == .sink(name: "postgres", attempts: 5), "every reject in the one file")
        #expect(lines[2] == nil, "the torn line stays apart")
    }

    @Test("a directory that cannot be made: store throws the system's reason, readiness says no")
    func blocked() async throws {
        let directory = try TemporaryDirectory()
        let blocker = directory.path + "/in-the-way"
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8)))
        let sink = FileRejectSink(directory: blocker)
        let error = await #expect(throws: IOError.self) {
            try await sink.store([Self.collectorReject(0, at: Self.day2)])
        }
        #expect(error?.description.contains(blocker) == true)
        #expect(await sink.isReachable() == false)
    }
}
