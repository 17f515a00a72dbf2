// The code samples of TallyDelivery.docc's identity, context, sessions and hooks article,
// compiled; the test below runs them on a fresh outbox (no collector needed).

import Foundation
import TallyDelivery
import Testing

func configureSDK(_ configuration: inout DeliveryConfiguration) {
    configuration.context.appName = "Podcasts"  // on Linux; Apple platforms read the bundle
    configuration.sessions = SessionConfiguration(idleTimeout: .seconds(30 * 60), events: true)
    configuration.lifecycle = LifecycleConfiguration()  // Application Installed, Opened, …
    configuration.enrichment = [
        { event in
            event.properties["build_flavor"] = "beta"
            return .keep
        },
        { event in event.name == "debug_menu_opened" ? .drop : .keep },
    ]
}

func userSignedIn(_ delivery: TallyDelivery, account: String) {
    delivery.identify(userID: account, traits: ["plan": "premium"])
    delivery.superProperties = ["plan": "premium"]
}

func userSignedOut(_ delivery: TallyDelivery) {
    delivery.reset()  // a new anonymous id; the session ends
    delivery.superProperties = [:]
}

@Test("the SDK article's login and logout change the identity; the anonymous id survives a relaunch")
func sdkArticleIdentity() throws {
    let directory = NSTemporaryDirectory() + "tally-doc-sdk-" + UUID().uuidString
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var configuration = DeliveryConfiguration(
        outboxDirectory: directory,
        endpoint: URL(string: "http://127.0.0.1:9")!,
        writeKey: "key"
    )
    configureSDK(&configuration)
    let delivery = try TallyDelivery(configuration: configuration)
    let installed = delivery.anonymousID
    #expect(try TallyDelivery(configuration: configuration).anonymousID == installed, "kept in identity.json")
    userSignedIn(delivery, account: "user-42")
    #expect(delivery.userID == "user-42" && delivery.superProperties == ["plan": "premium"])
    userSignedOut(delivery)
    #expect(delivery.userID == nil && delivery.anonymousID != installed && delivery.superProperties.isEmpty)
}
