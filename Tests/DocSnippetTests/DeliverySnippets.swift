// The code samples of TallyDelivery.docc (wiring delivery into an app), compiled; the test below
// runs the parts that need no collector.

import Foundation
import Logging
import ServiceLifecycle
import TallyDelivery
import TallyPipeline
import Testing

func startTracking(logger: Logger) async throws {
    let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
    var configuration = DeliveryConfiguration(
        outboxDirectory: support.appendingPathComponent("tally-outbox").path,
        endpoint: URL(string: "https://collector.example.com")!,
        writeKey: "YOUR_WRITE_KEY"
    )
    configuration.batchInterval = .seconds(1)  // the most a kill -9 can lose
    let delivery = try TallyDelivery(configuration: configuration, logger: logger)
    let tracker = delivery.tracker(feature: "episode")  // the install's anonymous id, the session
    _ = EpisodeListTracker(tracker: tracker)  // handed to the feature
    let group = ServiceGroup(services: [delivery], gracefulShutdownSignals: [.sigterm], logger: logger)
    try await group.run()
}

func appDidEnterBackground(_ delivery: TallyDelivery) async -> Bool {
    // Inside beginBackgroundTask: iOS gives about 30 s, keep a margin.
    await delivery.appWillSuspend(budget: .seconds(20))
}

func outboxReport(_ delivery: TallyDelivery) async -> String {
    let state = await delivery.state()
    let age = state.oldestAge.map { "\($0.components.seconds) s" } ?? "none"
    return "waiting \(state.waitingEvents) (oldest \(age)), dropped \(state.dropped), "
        + "dead-lettered \(state.deadLettered)"
}

func userOptedOut(_ delivery: TallyDelivery) async {
    await delivery.purge()  // nothing waiting is sent; counted as purged, not as lost
}

@Test("the delivery article's state report reads a fresh outbox")
func deliveryArticleReport() async throws {
    let directory = NSTemporaryDirectory() + "tally-doc-outbox-" + UUID().uuidString
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let configuration = DeliveryConfiguration(
        outboxDirectory: directory,
        endpoint: URL(string: "http://127.0.0.1:9")!,
        writeKey: "key"
    )
    let delivery = try TallyDelivery(configuration: configuration)
    #expect(await outboxReport(delivery) == "waiting 0 (oldest none), dropped 0, dead-lettered 0")
}
