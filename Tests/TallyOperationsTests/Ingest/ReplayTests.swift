import Foundation
import TallyCore
import TallyFileStore
import TallyOperations
import TallyPipeline
import TallySchema
import Testing

/// `tally replay`'s library over the file store: exactly once, what still fails stays (with its
/// reason), a replay stopped half-way then run again.
@Suite("Replay of dead letters and rejects")
struct ReplayTests {
    static let day = Timestamp(rfc3339: "2026-11-22T10:00:00Z")!

    /// The shop plan: `shop_viewed` with `sku` (string); `fixed` also declares `coupon`.
    static func registry(fixed: Bool, in directory: String) throws -> SchemaRegistry {
        let plans = directory + "/plans-\(fixed ? "fixed" : "old")"
        try FileManager.default.createDirectory(atPath: plans, withIntermediateDirectories: true)
        let coupon = fixed ? #", "coupon": { "type": "string" }"# : ""
        try """
        {
          "feature": "shop", "description": "The shop.", "screens": ["shop"],
          "events": [
            {
              "name": "shop_viewed",
              "version": "1-0-0",
              "description": "A product page appeared.",
              "properties": {
                "type": "object",
                "properties": { "sku": { "type": "string" }\(coupon) },
                "additionalProperties": false
              }
            }
          ]
        }
        """.write(toFile: plans + "/shop.json", atomically: true, encoding: .utf8)
        return try SchemaRegistry.load(directory: plans)
    }

    static func events(_ count: Int, from start: Int = 0, coupon: Bool = false) -> [EventEnvelope] {
        var ids = UUIDv7Generator(seed: UInt64(start + 1))
        return (start..<start + count).map { index in
            var properties: EventProperties = ["sku": .string("sku-\(index)")]
            if coupon { properties["coupon"] = .string("WINTER") }
            return EventEnvelope(
                eventID: ids.next(at: day),
                name: "shop_viewed",
                feature: "shop",
                properties: properties,
                occurredAt: day,
                receivedAt: day,
                anonymousID: "install-\(index % 7)"
            )
        }
    }

    static func deadLetter(_ events: [EventEnvelope], in directory: String) async throws {
        try await FileRejectSink(directory: directory).store(
            events.map {
                Reject(
                    content: .event($0),
                    reason: Reject.Reason(code: "connection", message: "connection refused"),
                    origin: .sink(name: "postgres", attempts: 10),
                    failedAt: day
                )
            }
        )
    }

    static func job(_ directory: String, registry: SchemaRegistry?, batchSize: Int = 5_000) -> (ReplayJob, FileSink) {
        let sink = FileSink(directory: directory)
        let job = ReplayJob(
            options: ReplayJob.Options(
                decoder: ReplayDecoder(validator: EventValidator(registry: registry)),
                fileStore: FileStoreLayout(root: directory),
                batchSize: batchSize
            ),
            sink: sink
        )
        return (job, sink)
    }

    /// Every line of the store's event files, decoded: copies counted.
    static func storedLines(_ directory: String) throws -> [EventEnvelope] {
        try FileStoreReader(directory: directory).readAll().events
    }

    static func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    static func scratch() throws -> String {
        let directory = NSTemporaryDirectory() + "tally-replay-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    static var deadLetterFile: String { "/dead-letter/dead-letter-2026-11-22.ndjson" }

    @Test("dead letters are stored once and their file removed; replayed again, nothing is stored twice")
    func deadLettersExactlyOnce() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let letters = Self.events(30)
        try await Self.deadLetter(Array(letters[..<20]), in: directory)
        try await Self.deadLetter(Array(letters[10...]), in: directory)  // ten of them dead-lettered twice

        let (job, sink) = Self.job(directory, registry: nil)
        let report = try await job.run(paths: [directory + Self.deadLetterFile])
        try await sink.shutdown()
        #expect(report.files.first?.outcome == .removed)
        #expect(report.replayed == 40 && report.eventsStored == 30)
        #expect(try Self.storedLines(directory) == letters)
        #expect(!FileManager.default.fileExists(atPath: directory + Self.deadLetterFile))

        // The same dead letters once more (as after a replay killed before it removed the file).
        try await Self.deadLetter(letters, in: directory)
        let (again, againSink) = Self.job(directory, registry: nil)
        let second = try await again.run(paths: [directory + Self.deadLetterFile])
        try await againSink.shutdown()
        #expect(second.files.first?.alreadyStored == 30 && second.eventsStored == 0)
        #expect(try Self.storedLines(directory).count == 30, "no copy appended")
    }

    @Test("after the plan is fixed the rejected events are stored; a line still invalid stays, with its new reason")
    func fixedPlanStillInvalidStays() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let old = try Self.registry(fixed: false, in: directory)
        let fixed = try Self.registry(fixed: true, in: directory)
        let withCoupon = Self.events(5, coupon: true)
        var badSKU = Self.events(1, from: 50, coupon: true)[0]
        badSKU.properties["sku"] = .integer(7)
        // The collector's rejects under the old plan (its NDJSON line format), one without its event.
        let rejects = directory + "/dead-letter/collector-rejects-2026-11-22.ndjson"
        try FileManager.default.createDirectory(atPath: directory + "/dead-letter", withIntermediateDirectories: true)
        var lines: [String] = []
        for (index, event) in (withCoupon + [badSKU]).enumerated() {
            let violation = EventValidator(registry: old).validate(event).violations[0]
            let json = String(decoding: event.ndjsonLine.dropLast(), as: UTF8.self)
            lines.append(
                #"{"failed_at":"2026-11-22T10:00:01.000000Z","sink":"collector","reason":"\#(violation.code.rawValue)","path":"\#(violation.path)","message":"\#(violation.message)","request_id":"r-\#(index)","index":\#(index),"source":"ios","event":\#(json)}"#
            )
        }
        let withoutEvent =
            #"{"failed_at":"2026-11-22T10:00:02.000000Z","sink":"collector","reason":"malformed_json","path":"$","message":"not JSON","request_id":"r-9","index":0,"source":"ios","event":null}"#
        lines.append(withoutEvent)
        try (lines.joined(separator: "\n") + "\n").write(toFile: rejects, atomically: true, encoding: .utf8)

        let (job, sink) = Self.job(directory, registry: fixed)
        let report = try await job.run(paths: [rejects])
        try await sink.shutdown()
        let file = try #require(report.files.first)
        #expect(file.replayed == 5 && file.stillFailing == [.typeMismatch: 1] && file.withoutEvent == 1)
        #expect(file.outcome == .rewritten)
        #expect(Set(try Self.storedLines(directory).map(\.eventID)) == Set(withCoupon.map(\.eventID)))

        let left = try Self.lines(rejects)
        #expect(left.count == 2)
        let still = try JSONParser.parse(left[0])
        #expect(still["reason"] == .string("type_mismatch"))
        #expect(still["path"] == .string("$.properties.sku"))
        #expect(still["request_id"] == .string("r-5"), "the rest of the line as it was")
        #expect(try EventEnvelope(json: still["event"]!) == badSKU)
        #expect(left[1] == withoutEvent)

        // Again: nothing to replay, the file stays as it is.
        let (again, againSink) = Self.job(directory, registry: fixed)
        let second = try await again.run(paths: [rejects])
        try await againSink.shutdown()
        #expect(second.replayed == 0 && second.files.first?.outcome == .untouched)
        #expect(try Self.lines(rejects) == left)
    }

    @Test("a replay stopped after storing and before rewriting, then run again, stores each event once")
    func stoppedBeforeRewriteThenRerun() async throws {
        struct Crash: Error {}
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let letters = Self.events(3_000)
        try await Self.deadLetter(letters, in: directory)
        let path = directory + Self.deadLetterFile
        let original = try Data(contentsOf: URL(fileURLWithPath: path))

        let (job, sink) = Self.job(directory, registry: nil, batchSize: 500)
        job.beforeRewrite = { _ in throw Crash() }
        await #expect(throws: Crash.self) { try await job.run(paths: [path]) }
        try await sink.shutdown()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original, "the file is as it was")
        #expect(try Self.storedLines(directory).count == 3_000)

        let (rerun, rerunSink) = Self.job(directory, registry: nil, batchSize: 500)
        let report = try await rerun.run(paths: [path])
        try await rerunSink.shutdown()
        #expect(report.files.first?.alreadyStored == 3_000)
        #expect(try Self.storedLines(directory) == letters, "each event stored once")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a sink failing half-way leaves the file as it was; the re-run stores the rest, each event once")
    func sinkFailingHalfWay() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let letters = Self.events(2_000)
        try await Self.deadLetter(letters, in: directory)
        let path = directory + Self.deadLetterFile
        let failing = FailingAfter(writes: 2, sink: FileSink(directory: directory))
        let job = ReplayJob(
            options: ReplayJob.Options(
                decoder: ReplayDecoder(validator: EventValidator(registry: nil)),
                fileStore: FileStoreLayout(root: directory),
                batchSize: 300
            ),
            sink: failing
        )
        await #expect(throws: IOError.self) { try await job.run(paths: [path]) }
        try await failing.shutdown()
        #expect(try Self.storedLines(directory).count >= 600)
        #expect(try Self.lines(path).count == 2_000)

        let (rerun, rerunSink) = Self.job(directory, registry: nil)
        _ = try await rerun.run(paths: [path])
        try await rerunSink.shutdown()
        #expect(try Self.storedLines(directory) == letters)
    }

    @Test("lines appended while a file is replayed stay in it for the next run")
    func appendedMeanwhileKept() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await Self.deadLetter(Self.events(10), in: directory)
        let later = Self.events(3, from: 100)
        // Their dead-letter lines, as the sink writes them.
        let elsewhere = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        try await Self.deadLetter(later, in: elsewhere)
        let appended = Array(try Data(contentsOf: URL(fileURLWithPath: elsewhere + Self.deadLetterFile)))
        let (job, sink) = Self.job(directory, registry: nil)
        job.beforeRewrite = { path in
            // A writer (another process, say) dead-letters more just before the swap, as writers do:
            // under the file's lock.
            var descriptor: Int32 = -1
            try FileLock.append(appended, to: &descriptor, path: path)
            close(descriptor)
        }
        let report = try await job.run(paths: [directory + Self.deadLetterFile])
        try await sink.shutdown()
        #expect(report.files.first?.appendedMeanwhile == 3 && report.files.first?.outcome == .rewritten)
        let left = try Self.lines(directory + Self.deadLetterFile)
        #expect(try left.map { try EventEnvelope(json: JSONParser.parse($0)["event"]!) } == later)
    }

    @Test("an ingest reject keeps its line byte for byte; after the fix it is stored with the id ingest derives")
    func ingestRejectsReplayed() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fixed = try Self.registry(fixed: true, in: directory)
        let line = #"{"name":"shop_viewed","occurred_at":"2026-11-22T10:00:00Z","properties":{"sku":"a","coupon":"X"}}"#
        let rejects = directory + "/rejects/ingest-20261122T100000Z.ndjson"
        try FileManager.default.createDirectory(atPath: directory + "/rejects", withIntermediateDirectories: true)
        var raw: [UInt8] = []
        JSONWriter.appendString(line, to: &raw)
        try
            (#"{"source":"export.ndjson","line":3,"reason":"unknown_property","path":"$.properties.coupon","message":"not declared","raw":"#
            + String(decoding: raw, as: UTF8.self) + "}\n").write(toFile: rejects, atomically: true, encoding: .utf8)

        let (job, sink) = Self.job(directory, registry: fixed)
        let report = try await job.run(paths: [rejects])
        try await sink.shutdown()
        #expect(report.files.first?.outcome == .removed)
        let stored = try Self.storedLines(directory)
        let expected = try Array(line.utf8).withUnsafeBufferPointer {
            try EnvelopeDecoder().decodeDerivingMissingID($0)
        }
        #expect(stored.map(\.eventID) == [expected.eventID])
    }
}

/// A sink that passes `writes` writes on, then fails every write with a full disk.
final class FailingAfter: EventSink, @unchecked Sendable {
    let name = "file"
    private let sink: FileSink
    private let remaining: Locked<Int>

    init(writes: Int, sink: FileSink) {
        self.sink = sink
        remaining = Locked(writes)
    }

    func write(_ batch: [EventEnvelope]) async throws {
        let allowed = remaining.withLock { count in
            count -= 1
            return count >= 0
        }
        guard allowed else { throw IOError(.write, path: "events", errno: ENOSPC) }
        try await sink.write(batch)
    }

    func flush() async throws { try await sink.flush() }
    func shutdown() async throws { try await sink.shutdown() }
}
