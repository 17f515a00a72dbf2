import TallyCore
import Testing

@testable import TallyDelivery

/// The merge rules of the chain's first stage, without I/O: the automatic context under a
/// tracker's own, super properties under an event's own, identity records' traits left alone.
@Suite("Context and super properties merge")
struct ContextMergeTests {
    static let automatic = EventContext(
        appVersion: "2.0",
        platform: "linux",
        locale: "en-GB",
        additional: EventProperties(["timezone": "Europe/London", "library": "tally"])
    )

    func prepare(_ event: EventEnvelope, network: PropertyValue? = nil) -> EventEnvelope {
        var event = event
        let stage = EventPreparation.Stage.context(Self.automatic, network: { network })
        #expect(stage.prepare(&event))
        return event
    }

    func event(properties: [String: String] = [:], context: EventContext? = nil, kind: EventKind = .track)
        -> EventEnvelope
    {
        EventEnvelope(
            eventID: EventID(high: 1, low: 2),
            name: "episode_list_viewed",
            properties: EventProperties(strings: properties),
            occurredAt: Timestamp(nanosecondsSinceEpoch: 0),
            context: context,
            kind: kind
        )
    }

    @Test("an event without a context gets the automatic one, the network member where the platform tells it")
    func automatic() {
        #expect(prepare(event()).context == Self.automatic)
        let withNetwork = prepare(event(), network: "wifi")
        #expect(withNetwork.context?.additional["network"] == "wifi")
    }

    @Test("a tracker's own context wins field by field and member by member")
    func own() {
        let own = EventContext(appVersion: "2.1-beta", additional: EventProperties(["timezone": "UTC"]))
        let context = prepare(event(context: own)).context
        #expect(context?.appVersion == "2.1-beta" && context?.platform == "linux" && context?.locale == "en-GB")
        #expect(context?.additional["timezone"] == "UTC" && context?.additional["library"] == "tally")
    }

    @Test("super properties merge under the event's own properties and leave no trace in the context")
    func superProperties() throws {
        let carrier = try #require(SuperPropertiesCarrier.context(["plan": "premium", "screen": "home"]))
        let prepared = prepare(event(properties: ["screen": "episode_list"], context: carrier))
        #expect(prepared.properties.values == ["plan": "premium", "screen": "episode_list"])
        #expect(prepared.context == Self.automatic, "the carried members are gone")
    }

    @Test("super properties ride along a tracker's own context too")
    func superWithOwnContext() throws {
        let carrier = try #require(SuperPropertiesCarrier.context(["plan": "premium"]))
        var own = EventContext(locale: "fr-FR")
        SuperPropertiesCarrier.attach(carrier, to: &own)
        let prepared = prepare(event(context: own))
        #expect(prepared.properties.values == ["plan": "premium"])
        #expect(prepared.context?.locale == "fr-FR" && prepared.context?.additional.count == 2)
    }

    @Test("identity records keep their traits: super properties are for events")
    func identityRecords() throws {
        let carrier = try #require(SuperPropertiesCarrier.context(["plan": "premium"]))
        let prepared = prepare(event(properties: ["email_domain": "example.com"], context: carrier, kind: .identify))
        #expect(prepared.properties.values == ["email_domain": "example.com"])
        #expect(prepared.context == Self.automatic)
    }

    @Test("the install state round-trips through identity.json's snake_case keys")
    func installState() throws {
        let state = InstallState(
            anonymousID: "a",
            userID: "u",
            session: Session(id: "s", startedAt: 1, lastActivityAt: 2),
            appVersion: "1.0"
        )
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        _ = try fixture.open()
        let store = IdentityStore(layout: fixture.layout, logger: .init(label: "test"))
        #expect(store.load() == nil)
        #expect(store.save(state))
        #expect(store.load() == state)
        let text = try String(contentsOfFile: fixture.directory + "/identity.json", encoding: .utf8)
        #expect(text.contains(#""anonymous_id":"a""#) && text.contains(#""last_activity_at":2"#))
    }
}
