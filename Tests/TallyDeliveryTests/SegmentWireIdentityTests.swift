import Foundation
import TallyCore
import Testing

@testable import TallyDelivery

/// On Segment's wire, identity records are Segment's identify, group and alias calls, and the app
/// SDK's context members travel under their own (Segment's) names.
@Suite("Segment wire: identity calls and context")
struct SegmentWireIdentityTests {
    func messages(_ events: [EventEnvelope]) throws -> [[String: Any]] {
        let body = WireEncoder.body(events, format: .segment, sentAt: Timestamp(nanosecondsSinceEpoch: 0))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        return try #require(object["batch"] as? [[String: Any]])
    }

    @Test("identify, group and alias become Segment calls with traits, groupId and previousId")
    func identityCalls() throws {
        let time = Timestamp(nanosecondsSinceEpoch: 1_700_000_000_000_000_000)
        func record(_ kind: EventKind, group: String? = nil, previous: String? = nil) -> EventEnvelope {
            EventEnvelope(
                eventID: EventID(high: 0x0189_0000_0000_7000, low: 0x8000_0000_0000_0000 | UInt64(kind.rawValue.count)),
                name: kind.rawValue,
                properties: ["plan": "premium"],
                occurredAt: time,
                userID: "u1",
                anonymousID: "a1",
                kind: kind,
                groupID: group,
                previousID: previous
            )
        }
        let sent = try messages([record(.identify), record(.group, group: "g1"), record(.alias, previous: "a1")])
        #expect(sent.map { $0["type"] as? String } == ["identify", "group", "alias"])
        #expect(sent.allSatisfy { ($0["traits"] as? [String: String]) == ["plan": "premium"] && $0["event"] == nil })
        #expect(sent[1]["groupId"] as? String == "g1" && sent[2]["previousId"] as? String == "a1")
        #expect(sent[0]["userId"] as? String == "u1" && sent[0]["anonymousId"] as? String == "a1")
    }

    @Test("an event's Segment-named context members are sent as they are; the fields fill in the rest")
    func context() throws {
        let automatic = AutomaticContext(
            ContextConfiguration(appName: "Demo", appVersion: "2.0"),
            libraryVersion: "9.9"
        )
        let event = EventEnvelope(
            eventID: EventID(high: 1, low: 2),
            name: "episode_list_viewed",
            occurredAt: Timestamp(nanosecondsSinceEpoch: 0),
            context: automatic.context
        )
        let context = try #require(try messages([event]).first?["context"] as? [String: Any])
        #expect((context["library"] as? [String: String]) == ["name": "tally", "version": "9.9"])
        #expect((context["app"] as? [String: String])?["name"] == "Demo")
        #expect((context["app"] as? [String: String])?["version"] == "2.0")
        #expect(context["timezone"] is String && context["device"] is [String: Any] && context["locale"] is String)
    }
}
