import Foundation
import Logging
import ServiceLifecycle
import TallyDelivery
import TallyTestSupport
import Testing
import Tracking

/// TallyDelivery against a real `tally serve` process (file store): every tracked event arrives
/// exactly once, on both wires, and two deliveries sharing one outbox never send a batch twice.
@Suite("Delivery to a live tally serve", .serialized)
struct LiveDeliveryTests {
    struct Collector {
        let child: ChildProcess
        let endpoint: URL
        let key: String
        let work: String

        /// The event lines of the file store, and their distinct ids, for the events named `name`.
        func stored(named name: String = "episode_list_viewed") throws -> (lines: Int, ids: Set<String>) {
            let directory = work + "/data/events"
            var lines = 0
            var ids = Set<String>()
            for file in try FileManager.default.contentsOfDirectory(atPath: directory) where file.hasSuffix(".ndjson") {
                let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
                for line in text.split(separator: "\n") where line.contains(#""name":"\#(name)""#) {
                    lines += 1
                    if let range = line.range(of: #""event_id":""#) {
                        ids.insert(String(line[range.upperBound...].prefix(36)))
                    }
                }
            }
            return (lines, ids)
        }

        func stop() {
            let work = self.work
            child.terminate { try? FileManager.default.removeItem(atPath: work) }
        }
    }

    static func startCollector() async throws -> Collector {
        let work = NSTemporaryDirectory() + "tally-delivery-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let added = try await TestDatabase.tally(["keys", "add", "--keys", work + "/keys.json", "--source", "app"])
        let key = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(added.status == 0 && !key.isEmpty)
        let child = try ChildProcess(
            "tally",
            arguments: [
                "serve", "--port", "0", "--keys", work + "/keys.json", "--data-dir", work + "/data",
                "--registry", "Examples/registry",
            ]
        )
        let line = try await #require(child.standardErrorLine(containing: "listening on"))
        let port = try #require(Int(line.split(separator: ":").last ?? ""))
        return Collector(child: child, endpoint: URL(string: "http://127.0.0.1:\(port)")!, key: key, work: work)
    }

    /// Runs `delivery` in a service group while `body` tracks and flushes, then stops it gracefully.
    static func running(_ deliveries: [TallyDelivery], _ body: @Sendable () async throws -> Void) async throws {
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: deliveries.map { .init(service: $0) },
                logger: Logger(label: "test")
            )
        )
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await body()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    static func configuration(_ collector: Collector, outbox: String, wire: WireFormat) -> DeliveryConfiguration {
        var configuration = DeliveryConfiguration(
            outboxDirectory: outbox,
            endpoint: collector.endpoint,
            writeKey: collector.key
        )
        configuration.wireFormat = wire
        configuration.batchInterval = .milliseconds(100)
        configuration.limits.maxEvents = 300  // several requests for the events below
        return configuration
    }

    struct Viewed: TrackingEventContract {
        var name: String { "episode_list_viewed" }
        var properties: [String: String] { [:] }
    }

    @Test("every tracked event arrives exactly once; the outbox ends empty", arguments: [WireFormat.tally, .segment])
    func exactlyOnce(wire: WireFormat) async throws {
        let collector = try await Self.startCollector()
        defer { collector.stop() }
        let outbox = collector.work + "/outbox"
        let delivery = try TallyDelivery(configuration: Self.configuration(collector, outbox: outbox, wire: wire))
        let tracker = delivery.tracker(feature: "episode")
        try await Self.running([delivery]) {
            for _ in 0..<1_000 { tracker.track(Viewed()) }
            // Generous: under the whole suite's I/O, writing the outbox (its fsyncs) has taken over a minute.
            #expect(await delivery.flush(timeout: .seconds(300)))
        }
        let stored = try collector.stored()
        #expect(stored.lines == 1_000 && stored.ids.count == 1_000)
        let state = await delivery.state()
        #expect(state.written == 1_000 && state.uploaded == 1_000 && state.waitingEvents == 0 && state.dropped == 0)
        let statistics = delivery.statistics
        #expect(statistics.tracked == 1_000 && statistics.uploaded == 1_000 && statistics.requests >= 4)
        #expect(statistics.bytesSent < statistics.uncompressedBytesSent / 4, "gzip on the wire")
    }

    @Test("two deliveries on one outbox directory upload at once: each event stored once, no batch sent twice")
    func sharedOutbox() async throws {
        let collector = try await Self.startCollector()
        defer { collector.stop() }
        let outbox = collector.work + "/outbox"
        let deliveries = try (0..<2).map { _ in
            try TallyDelivery(configuration: Self.configuration(collector, outbox: outbox, wire: .tally))
        }
        try await Self.running(deliveries) {
            await withTaskGroup(of: Void.self) { group in
                for delivery in deliveries {
                    group.addTask {
                        let tracker = delivery.tracker(feature: "episode")
                        for round in 0..<10 {
                            for _ in 0..<100 { tracker.track(Viewed()) }
                            if round % 3 == 0 { await delivery.flush(timeout: .seconds(120)) }
                        }
                        await delivery.flush(timeout: .seconds(300))
                    }
                }
            }
        }
        // Whatever one delivery wrote, either may have sent; the file store shows every send.
        let stored = try collector.stored()
        #expect(stored.ids.count == 2_000)
        #expect(stored.lines == 2_000, "a batch was sent twice")
        let state = await deliveries[0].state()
        #expect(state.written == 2_000 && state.uploaded == 2_000 && state.waitingEvents == 0)
        let uploaded = deliveries.map(\.statistics.uploaded)
        #expect(uploaded.reduce(0, +) == 2_000)
    }
}
