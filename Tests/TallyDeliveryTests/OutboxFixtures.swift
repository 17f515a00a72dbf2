import Foundation
import Logging
import TallyCore

@testable import TallyDelivery

/// A fresh outbox directory and events to put in it.
struct OutboxFixture {
    let directory = NSTemporaryDirectory() + "tally-outbox-" + UUID().uuidString
    var layout: OutboxLayout { OutboxLayout(root: directory) }

    func open(caps: OutboxCaps = OutboxCaps()) throws -> Outbox {
        try Outbox(directory: directory, caps: caps, logger: Logger(label: "test.outbox"))
    }

    func files(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `count` tracked-like events with fresh UUIDv7 ids.
    static func events(_ count: Int, name: String = "episode_list_viewed") -> [EventEnvelope] {
        var ids = UUIDv7Generator()
        let now = Timestamp.now().truncatedToMicroseconds
        return (0..<count).map { index in
            EventEnvelope(
                eventID: ids.next(at: now),
                name: name,
                feature: "episode",
                properties: ["index": .integer(Int64(index))],
                occurredAt: now
            )
        }
    }
}
