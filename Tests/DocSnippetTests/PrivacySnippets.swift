// The consent, personal data and sampling samples of TallyDelivery.docc (WiringDelivery.md), compiled;
// the test below runs them against the Examples' plans with an outbox in a temporary directory.

import Foundation
import Logging
import TallyDelivery
import TallySchema
import TallyTestSupport
import Testing

func startTrackingWithConsent(plans: String, salt: String?, logger: Logger) throws -> TallyDelivery {
    let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
    var configuration = DeliveryConfiguration(
        outboxDirectory: support.appendingPathComponent("tally-outbox").path,
        endpoint: URL(string: "https://collector.example.com")!,
        writeKey: "YOUR_WRITE_KEY"
    )
    configuration.defaultConsent = .pending  // ask first: nothing is uploaded until the user answers
    configuration.trackingPlan = try SchemaRegistry.load(directory: plans)  // personal data, sample rates
    configuration.personalDataSalt = salt  // from the app's configuration, not from its source
    return try TallyDelivery(configuration: configuration, logger: logger)
}

func userAnswered(_ delivery: TallyDelivery, accepted: Bool) async throws {
    // Remembered in the outbox directory: the next launch starts with this answer.
    try await delivery.setConsent(accepted ? .granted : .denied)
}

@Test("the consent sample: pending for a new install, the answer remembered")
func privacyArticleConsent() async throws {
    // The sample's Application Support directory, in a temporary home of its own.
    let home = NSTemporaryDirectory() + "tally-doc-home-" + UUID().uuidString
    defer { try? FileManager.default.removeItem(atPath: home) }
    setenv("XDG_DATA_HOME", home, 1)
    defer { unsetenv("XDG_DATA_HOME") }
    let plans = TestDatabase.repository + "/Examples/registry"
    let delivery = try startTrackingWithConsent(plans: plans, salt: nil, logger: Logger(label: "doc"))
    guard delivery.configuration.outboxDirectory.hasPrefix(home) else {
        // Foundation ignored XDG_DATA_HOME here: leave the machine's directory alone.
        return
    }
    #expect(delivery.consent == .pending)
    try await userAnswered(delivery, accepted: false)
    let again = try startTrackingWithConsent(plans: plans, salt: nil, logger: Logger(label: "doc"))
    #expect(again.consent == .denied)
}
