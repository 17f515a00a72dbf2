import Foundation
import TallyDelivery
import Testing
import Tracking

/// Consent, sampling and personal data through a real TallyDelivery (outbox, pipeline, uploader),
/// with an endpoint nothing listens on: what matters is what is written and whether a request is
/// even tried. The collector side is Tests/delivery (test_consent.py, test_privacy.py).
@Suite("Consent and the plan's privacy keywords in TallyDelivery", .serialized)
struct ConsentDeliveryTests {
    struct Selected: TrackingEventContract {
        var name: String { "Order Completed" }
        var properties: [String: String] { ["email": "ada@example.com", "total": "19.99"] }
    }

    static func configuration(_ directory: String, consent: ConsentState = .granted) throws -> DeliveryConfiguration {
        var configuration = DeliveryConfiguration(
            outboxDirectory: directory,
            endpoint: URL(string: "http://127.0.0.1:9")!,  // discard: refused at once
            writeKey: "key"
        )
        configuration.defaultConsent = consent
        configuration.batchInterval = .milliseconds(50)
        configuration.uploadInterval = .milliseconds(50)
        configuration.trackingPlan = try PrivacyFixtures.registry(
            #"""
            {"name": "Order Completed", "version": "1-0-0", "description": "d", "properties": {"type": "object",
             "properties": {"email": {"type": "string", "x-tally-personal-data": "hash"}, "total": {"type": "string"}}}}
            """#
        )
        return configuration
    }

    static func running(_ delivery: TallyDelivery, _ body: @Sendable () async throws -> Void) async throws {
        try await LiveDeliveryTests.running([delivery], body)
    }

    @Test("pending: written, never a request; denied: discarded, the outbox emptied; remembered at the next launch")
    func pendingThenDenied() async throws {
        let directory = NSTemporaryDirectory() + "tally-consent-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = try Self.configuration(directory, consent: .pending)
        configuration.shutdownUploadTimeout = .milliseconds(100)
        let delivery = try TallyDelivery(configuration: configuration)
        #expect(delivery.consent == .pending)
        let tracker = delivery.tracker(feature: "shop")
        try await Self.running(delivery) {
            for _ in 0..<20 { tracker.track(Selected()) }
            #expect(await delivery.flush(timeout: .seconds(120)) == false, "held: the outbox stays full")
            #expect(await delivery.state().waitingEvents == 20)
            #expect(delivery.statistics.requests == 0, "no request under pending consent")
            // What waits is scrubbed already: the plan's hash, not the address.
            let batches = try FileManager.default.contentsOfDirectory(atPath: directory + "/batches")
            let text = try batches.map { try String(contentsOfFile: directory + "/batches/" + $0, encoding: .utf8) }
                .joined()
            #expect(!text.contains("ada@example.com") && text.contains("b5fc85e55755f9e0"))
            try await delivery.setConsent(.denied)
            let state = await delivery.state()
            #expect(state.waitingEvents == 0 && state.purged == 20)
            for _ in 0..<5 { tracker.track(Selected()) }
            await delivery.flush(timeout: .seconds(120))  // held: returns once written
        }
        let statistics = delivery.statistics
        #expect(statistics.written == 20 && statistics.discardedNoConsent == 5 && statistics.requests == 0)
        // The next launch: denied, whatever the default says; nothing written.
        let next = try TallyDelivery(configuration: try Self.configuration(directory, consent: .granted))
        #expect(next.consent == .denied)
        let nextTracker = next.tracker(feature: "shop")
        try await Self.running(next) {
            for _ in 0..<3 { nextTracker.track(Selected()) }
            await next.flush(timeout: .seconds(120))  // held: returns once written
        }
        #expect(next.statistics.written == 0 && next.statistics.discardedNoConsent == 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/batches").isEmpty)
    }

    @Test("granted after pending: the uploader tries again at once")
    func grantWakesTheUploader() async throws {
        let directory = NSTemporaryDirectory() + "tally-consent-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = try Self.configuration(directory, consent: .pending)
        configuration.uploadInterval = .seconds(3600)
        configuration.shutdownUploadTimeout = .milliseconds(100)
        let delivery = try TallyDelivery(configuration: configuration)
        let tracker = delivery.tracker(feature: "shop")
        try await Self.running(delivery) {
            tracker.track(Selected())
            await delivery.flush(timeout: .seconds(120))  // held: returns once written
            #expect(delivery.statistics.requests == 0)
            try await delivery.setConsent(.granted)
            // The refused endpoint fails the request, but it was tried without waiting an hour.
            let deadline = ContinuousClock.now + .seconds(10)
            while delivery.statistics.requests == 0 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(delivery.statistics.requests > 0)
        }
        #expect(delivery.consent == .granted)
    }
}
