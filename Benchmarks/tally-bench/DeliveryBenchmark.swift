import Foundation
import Logging
import TallyCompression
import TallyCore
import TallyDelivery
import TallyFileStore
import TallyPipeline
import TallySchema
import Tracking

/// The app side of delivery: `track()` with the outbox and the uploader running against a live
/// `tally serve`, the outbox's write cost per event next to the file store's, and bytes on the wire.
enum DeliveryBenchmark {
    struct Latency {
        var samples: Samples
        var timerOverhead: Int64
        var statistics: DeliveryStatistics
        var arrived: Bool
    }

    /// `tally serve` (file store) on a port of its choosing, in a directory of its own.
    struct Collector {
        let process: Process
        let endpoint: URL
        let key: String
        let directory: String

        static func start() throws -> Collector {
            let directory = NSTemporaryDirectory() + "tally-bench-serve-\(getpid())"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let tally = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
                .appendingPathComponent("tally")
            let keys = Process()
            keys.executableURL = tally
            keys.arguments = ["keys", "add", "--keys", directory + "/keys.json", "--source", "bench"]
            let keyPipe = Pipe()
            keys.standardOutput = keyPipe
            try keys.run()
            let key = String(decoding: keyPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            keys.waitUntilExit()
            let serve = Process()
            serve.executableURL = tally
            serve.arguments = [
                "serve", "--port", "0", "--keys", directory + "/keys.json", "--data-dir", directory + "/data",
            ]
            let errors = Pipe()
            serve.standardError = errors
            try serve.run()
            var text = ""
            while !text.contains("\n") {
                let data = errors.fileHandleForReading.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            guard let port = text.split(separator: "\n").first?.split(separator: ":").last.flatMap({ Int($0) })
            else { throw CocoaError(.executableLoad) }
            return Collector(
                process: serve,
                endpoint: URL(string: "http://127.0.0.1:\(port)")!,
                key: key,
                directory: directory
            )
        }

        func stop() {
            process.terminate()
            process.waitUntilExit()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// `track()` latency with a `TallyDelivery` running: the outbox written every 100 ms and the
    /// uploader sending to `collector`, as in the baseline (`TrackLatencyBenchmark`) each round
    /// ends with the memory written out. `sdk`: the app SDK all on (a signed-in user, sessions with
    /// their events, three super properties, the automatic context, two enrichment hooks, lifecycle
    /// events, a plan that hashes, removes and samples); without it none of them (sessions off, no
    /// context): delivery alone.
    static func trackLatency(collector: Collector, rounds: Int, perRound: Int, sdk: Bool = false) async throws
        -> Latency
    {
        let outbox = collector.directory + (sdk ? "/outbox-sdk" : "/outbox")
        var configuration = DeliveryConfiguration(
            outboxDirectory: outbox,
            endpoint: collector.endpoint,
            writeKey: collector.key
        )
        configuration.batchInterval = .milliseconds(100)
        configuration.queueCapacity = 1_000_000
        configuration.caps = OutboxCaps(maxBytes: 1 << 34, maxEvents: 1 << 30)
        if sdk {
            configuration.sessions = SessionConfiguration(events: true)
            configuration.lifecycle = LifecycleConfiguration()
            configuration.context.appVersion = "4.2.0"
            // Privacy on too: consent remembered as granted, the selected episode's id hashed with a
            // salt, its position removed, the event sampled at 50 % per user.
            configuration.trackingPlan = try privacyPlan(in: collector.directory)
            configuration.personalDataSalt = "bench-salt"
            configuration.enrichment = [
                { event in
                    event.properties["build_flavor"] = "release"
                    return .keep
                },
                { event in event.name == "debug_menu_opened" ? .drop : .keep },
            ]
        } else {
            configuration.sessions = nil
            configuration.context.automatic = false
        }
        let delivery = try TallyDelivery(configuration: configuration, logger: Logger(label: "bench"))
        if sdk {
            delivery.identify(userID: "bench-user", traits: ["plan": "premium"])
            delivery.superProperties = ["plan": "premium", "experiment": "b", "ab_group": 7]
        }
        let tracker = delivery.tracker(
            feature: "episode",
            identity: sdk ? TrackerIdentity() : TrackerIdentity(anonymousID: "bench")
        )
        let event = TrackLatencyBenchmark.EpisodeListEvent.episodeSelected(episodeID: "ep-42", position: 3)
        var samples = Samples(capacity: 0)
        var arrived = false
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await delivery.run() }
            samples = await timeCalls(rounds: rounds, perRound: perRound, { tracker.track(event) }) {
                await delivery.flush(timeout: .zero)  // write to the outbox; the uploader goes on
            }
            arrived = await delivery.flush(timeout: .seconds(300))
            group.cancelAll()
        }
        return Latency(
            samples: samples,
            timerOverhead: timerOverhead(),
            statistics: delivery.statistics,
            arrived: arrived
        )
    }

    /// A plan for the tracked event that hashes one property, removes another and samples the event.
    static func privacyPlan(in directory: String) throws -> SchemaRegistry {
        let plans = directory + "/privacy-plans"
        try FileManager.default.createDirectory(atPath: plans, withIntermediateDirectories: true)
        let plan = #"""
            {"feature": "episode", "description": "The bench's event, its personal data marked.",
             "screens": ["episode_list"],
             "events": [{"name": "episode_list_episode_selected", "version": "1-0-0",
              "description": "An episode tapped in the list.", "x-tally-sample-rate": 0.5,
              "properties": {"type": "object", "properties": {
                "episode_id": {"type": "string", "x-tally-personal-data": "hash"},
                "position": {"type": "integer", "x-tally-personal-data": "remove"}}}}]}
            """#
        try plan.write(toFile: plans + "/episode.json", atomically: true, encoding: .utf8)
        return try SchemaRegistry.load(directory: plans)
    }

    /// Microseconds per event of writing `batches` batches of `batchSize` events durably: the
    /// outbox (one file each: temporary, fsync, rename, directory fsync, state.json) and the file
    /// store (append, then `flush()`: fsync), medians over `rounds`.
    static func writeCost(batches: Int, batchSize: Int, rounds: Int) async throws -> (outbox: Double, fileStore: Double)
    {
        let events = Array(
            repeating: TrackLatencyBenchmark.EpisodeListEvent.episodeSelected(episodeID: "ep-42", position: 3),
            count: batchSize
        )
        var ids = UUIDv7Generator()
        let batch = events.map { event in
            let now = Timestamp.now().truncatedToMicroseconds
            return EventEnvelope(
                eventID: ids.next(at: now),
                name: event.name,
                feature: "episode",
                properties: EventProperties(strings: event.properties),
                occurredAt: now,
                receivedAt: now,
                anonymousID: "bench"
            )
        }
        var outboxTimes: [Double] = []
        var fileTimes: [Double] = []
        for round in 0..<rounds {
            let directory = NSTemporaryDirectory() + "tally-bench-write-\(getpid())-\(round)"
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let outbox = try Outbox(
                directory: directory + "/outbox",
                caps: OutboxCaps(maxBytes: 1 << 34, maxEvents: 1 << 30),
                logger: Logger(label: "bench")
            )
            var start = monotonicNanoseconds()
            for _ in 0..<batches { _ = outbox.write(batch) }
            outboxTimes.append(Double(monotonicNanoseconds() - start) / Double(batches * batchSize))
            let sink = FileSink(directory: directory + "/store")
            start = monotonicNanoseconds()
            for _ in 0..<batches {
                try await sink.write(batch)
                try await sink.flush()
            }
            fileTimes.append(Double(monotonicNanoseconds() - start) / Double(batches * batchSize))
            try await sink.shutdown()
        }
        return (outboxTimes.sorted()[rounds / 2], fileTimes.sorted()[rounds / 2])
    }

    /// Bytes per event of `count` demo-like events: tally NDJSON gzip (what the uploader sends),
    /// and the same events as Segment JSON, uncompressed and gzip.
    static func wireBytes(count: Int) -> (
        tallyGzip: Double, segmentPlain: Double, segmentGzip: Double, tallyPlain: Double
    ) {
        var ids = UUIDv7Generator()
        let events = (0..<count).map { index in
            let now = Timestamp.now().truncatedToMicroseconds
            return EventEnvelope(
                eventID: ids.next(at: now),
                name: index % 3 == 0 ? "episode_list_viewed" : "episode_list_episode_selected",
                feature: "episode",
                properties: index % 3 == 0
                    ? EventProperties()
                    : EventProperties(strings: ["episode_id": "ep-\(index % 12)", "position": "\(index % 12)"]),
                occurredAt: now,
                receivedAt: now,
                anonymousID: "demo-install",
                sessionID: "run-1"
            )
        }
        let sentAt = Timestamp.now()
        let tally = WireEncoder.body(events, format: .tally, sentAt: sentAt)
        let segment = WireEncoder.body(events, format: .segment, sentAt: sentAt)
        let per = { (bytes: Int) in Double(bytes) / Double(count) }
        return (
            per(Deflater.compress(tally, format: .gzip).count), per(segment.count),
            per(Deflater.compress(segment, format: .gzip).count), per(tally.count)
        )
    }
}
