import TallyCore
import TallyFormats
import Testing

@Suite("Segment and PostHog mapping")
struct FormatMappingTests {
    static func decode(_ line: String, _ format: SourceFormat = .auto) -> FormatDecoder.Decoded {
        let bytes = Array(line.utf8)
        return bytes.withUnsafeBufferPointer { FormatDecoder(format: format).decode($0) }
    }

    static func event(_ line: String, _ format: SourceFormat = .auto) throws -> EventEnvelope {
        try #require(decode(line, format).results.first).get()
    }

    @Test("a foreign id maps to the UUIDv5 any library computes; UUID spellings are that UUID")
    func ids() throws {
        // Python: uuid.uuid5(uuid.UUID("f105c21a-08e0-5751-8548-82d7eca2ad03"), "ajs-next-1700000000000-8b3c1e2f")
        #expect(
            EventID(foreignID: "ajs-next-1700000000000-8b3c1e2f").description == "bcd120ec-12f0-50a8-b7a1-320158af4348"
        )
        #expect(EventID(foreignID: "é").description == "f9f540fa-41d3-54f2-87cb-12d06d5fcf86")
        #expect(EventID(foreignID: "").description == "a90ebcc8-82bf-5d69-a5cf-6a9c8581ca7d")
        let canonical = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
        for spelling in [
            canonical, canonical.uppercased(), "a0eebc999c0b4ef8bb6d6bb9bd380a11",
            "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
            "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11", "{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}",
        ] {
            #expect(EventID(uuidText: spelling)?.description == canonical, "\(spelling)")
        }
        for notUUID in [
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1", "{a0eebc999c0b4ef8bb6d6bb9bd380a11",
            "a0eebc99--9c0b4ef8bb6d6bb9bd380a11", "-a0eebc999c0b4ef8bb6d6bb9bd380a11",
            "a0eebc999c0b4ef8bb6d6bb9bd380a11-", " a0eebc999c0b4ef8bb6d6bb9bd380a11",
        ] {
            #expect(EventID(uuidText: notUUID) == nil, "\(notUUID)")
        }
        let event = try Self.event(
            #"{"event_id":"A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11","name":"x","occurred_at":"2026-11-20T10:00:00Z"}"#
        )
        #expect(event.eventID.description == canonical)
        #expect(event.sourceID == nil)
        let foreign = try Self.event(
            #"{"event_id":"9f8e7d6c5b4a39281706f5e4d3c2b1a0z","name":"x","occurred_at":"2026-11-20T10:00:00Z"}"#
        )
        #expect(foreign.sourceID == "9f8e7d6c5b4a39281706f5e4d3c2b1a0z")
        #expect(foreign.eventID == EventID(foreignID: "9f8e7d6c5b4a39281706f5e4d3c2b1a0z"))
    }

    @Test("a message without an id gets the same id when re-sent with another sentAt or receivedAt")
    func contentIDsIgnoreResendFields() throws {
        let first = try Self.event(
            #"{"type":"track","event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z","sentAt":"2026-11-20T10:00:01Z"}"#
        )
        let again = try Self.event(
            #"{"type":"track","event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z","sentAt":"2026-11-20T11:00:00Z","receivedAt":"2026-11-20T11:00:01Z"}"#
        )
        #expect(first.eventID == again.eventID)
        let other = try Self.event(#"{"type":"track","event":"B","userId":"u","timestamp":"2026-11-20T10:00:00Z"}"#)
        #expect(first.eventID != other.eventID)
        let tally = try Self.event(
            #"{"name":"a_b","occurred_at":"2026-11-20T10:00:00Z","sent_at":"2026-11-20T10:00:01Z"}"#
        )
        let tallyAgain = try Self.event(
            #"{"sent_at":"2026-11-21T10:00:01Z","name":"a_b","occurred_at":"2026-11-20T10:00:00Z"}"#
        )
        #expect(tally.eventID == tallyAgain.eventID)
    }

    @Test("Segment: track, page, screen, identify, group and alias; context merged from the batch")
    func segmentCalls() throws {
        let track = try Self.event(
            #"{"type":"track","event":"Order Completed","messageId":"m1","userId":42,"originalTimestamp":"2026-11-20T10:00:00.100Z","timestamp":"2026-11-20T10:00:03Z","properties":{"revenue":25.00,"products":[{"sku":"a"}]},"context":{"app":{"version":"4.2","build":"7"},"os":{"name":"iOS","version":"17.1"},"locale":"de-DE","ip":"1.2.3.4"}}"#
        )
        #expect(track.name == "Order Completed")
        #expect(track.kind == .track)
        #expect(track.userID == "42")
        #expect(track.occurredAt == Timestamp(rfc3339: "2026-11-20T10:00:00.100Z"))
        #expect(track.properties["revenue"]?.description == "25.00")
        #expect(track.properties["products"]?.description == #"[{"sku":"a"}]"#)
        #expect(track.context?.appVersion == "4.2")
        #expect(track.context?.platform == "iOS")
        #expect(track.context?.locale == "de-DE")
        #expect(track.context?.additional["ip"] == .string("1.2.3.4"))

        let spaced = try Self.event(
            #"{"type":"track","event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z","properties":{"items": [ {"sku" : "a\u00e9", "n": 1.50} ],"x":1e2}}"#
        )
        #expect(spaced.properties["items"]?.description == #"[ {"sku" : "a\u00e9", "n": 1.50} ]"#)
        #expect(spaced.properties["x"]?.description == "1e2")

        let page = try Self.event(
            #"{"type":"page","name":"Home","category":"Docs","anonymousId":"a","timestamp":"2026-11-20T10:00:00Z"}"#
        )
        #expect(page.name == "page")
        #expect(page.properties["name"] == .string("Home"))
        #expect(page.properties["category"] == .string("Docs"))

        let batch = Self.decode(
            #"{"batch":[{"type":"identify","userId":"u","traits":{"plan":"pro"},"timestamp":"2026-11-20T10:00:00Z"},{"type":"group","userId":"u","groupId":"g1","traits":{"size":3},"timestamp":"2026-11-20T10:00:00Z","context":{"library":{"name":"own"}}},{"type":"alias","userId":"u","previousId":"anon","timestamp":"2026-11-20T10:00:00Z"}],"sentAt":"2026-11-20T10:00:09Z","context":{"library":{"name":"batch"},"ip":"5.6.7.8"}}"#
        )
        #expect(batch.format == .segment)
        let records = try batch.results.map { try $0.get() }
        #expect(records.map(\.kind) == [.identify, .group, .alias])
        #expect(records[0].properties["plan"] == .string("pro"))
        #expect(records[1].groupID == "g1")
        #expect(records[1].context?.additional["library"]?.description == #"{"name":"own"}"#)
        #expect(records[1].context?.additional["ip"] == .string("5.6.7.8"))
        #expect(records[2].previousID == "anon")
        #expect(records.allSatisfy { $0.sentAt == Timestamp(rfc3339: "2026-11-20T10:00:09Z") })
    }

    @Test("at a collector, a Segment or PostHog message without a time occurred when it arrived")
    func arrivalTime() throws {
        let arrived = Timestamp(rfc3339: "2026-11-24T18:00:00Z")!
        func decode(_ line: String, _ format: SourceFormat) -> FormatDecoder.Decoded {
            Array(line.utf8).withUnsafeBufferPointer { FormatDecoder(format: format).decode($0, arrivedAt: arrived) }
        }
        let segment = try #require(
            decode(#"{"type":"track","event":"Order Completed","userId":"u1","messageId":"m1"}"#, .segment)
                .results.first
        ).get()
        #expect(segment.occurredAt == arrived)
        let posthog = try #require(
            decode(#"{"api_key":"k","event":"signed_up","distinct_id":"d1"}"#, .posthog).results.first
        ).get()
        #expect(posthog.occurredAt == arrived)
        // A time of the message's own wins.
        let timed = try #require(
            decode(#"{"type":"track","event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z"}"#, .segment)
                .results.first
        ).get()
        #expect(timed.occurredAt == Timestamp(rfc3339: "2026-11-20T10:00:00Z"))
    }

    @Test("a Segment track from tally's delivery library keeps its feature (context.feature)")
    func segmentFeature() throws {
        let single = try Self.event(
            #"{"type":"track","event":"episode_list_viewed","userId":"u","timestamp":"2026-11-20T10:00:00Z","context":{"feature":"episode","library":{"name":"tally"}}}"#,
            .segment
        )
        #expect(single.feature == "episode")
        let batch = Self.decode(
            #"{"batch":[{"type":"track","event":"player_opened","userId":"u","timestamp":"2026-11-20T10:00:00Z","context":{"feature":"player"}},{"type":"track","event":"Order Completed","userId":"u","timestamp":"2026-11-20T10:00:00Z"}],"context":{"ip":"1.2.3.4"}}"#
        )
        let events = try batch.results.map { try $0.get() }
        #expect(events.map(\.feature) == ["player", nil])
    }

    @Test("Segment messages that cannot be stored say why, with the path inside the line")
    func segmentRefusals() {
        func failure(_ line: String) -> EnvelopeDecodingError? {
            if case .failure(let error)? = Self.decode(line, .segment).results.first { return error }
            return nil
        }
        #expect(failure(#"{"type":"track","userId":"u","timestamp":"2026-11-20T10:00:00Z"}"#)?.path == "$.event")
        #expect(failure(#"{"type":"track","event":"A","timestamp":"2026-11-20T10:00:00Z"}"#)?.path == "$.userId")
        #expect(failure(#"{"type":"track","event":"A","userId":"u"}"#)?.path == "$.timestamp")
        #expect(
            failure(#"{"type":"track","event":"A","userId":"u","timestamp":"yesterday"}"#)?.code == .invalidTimestamp
        )
        #expect(failure(#"{"type":"launch","userId":"u","timestamp":"2026-11-20T10:00:00Z"}"#)?.path == "$.type")
        #expect(failure(#"{"type":"group","userId":"u","timestamp":"2026-11-20T10:00:00Z"}"#)?.path == "$.groupId")
        #expect(
            failure(#"{"type":"track","event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z","messageId":""}"#)?
                .code == .invalidEventID
        )
        let batch = Self.decode(
            #"{"batch":[{"type":"track","event":"A","userId":"u","timestamp":"2026-11-20T10:00:00Z"},{"type":"track","userId":"u","timestamp":"2026-11-20T10:00:00Z"}]}"#
        )
        guard case .failure(let error) = batch.results[1] else {
            Issue.record("expected a refusal")
            return
        }
        #expect(error.path == "$.batch[1].event")
        #expect((try? batch.results[0].get()) != nil)
    }

    @Test("PostHog: events, $identify, $create_alias, $groupidentify, distinct_id in properties, export timestamps")
    func posthogEvents() throws {
        let pageview = try Self.event(
            #"{"uuid":"0192f5e4-8c3a-7b21-9f00-1a2b3c4d5e6f","event":"$pageview","timestamp":"2026-11-20 10:00:04.123456","properties":{"distinct_id":"p1","$device_id":"d1","$session_id":"s1","$os":"Android","$app_version":"1.2"},"team_id":2,"api_key":"phc_secret"}"#
        )
        #expect(pageview.name == "$pageview")
        #expect(pageview.userID == "p1")
        #expect(pageview.anonymousID == "d1")
        #expect(pageview.sessionID == "s1")
        #expect(pageview.occurredAt == Timestamp(rfc3339: "2026-11-20T10:00:04.123456Z"))
        #expect(pageview.context?.platform == "Android")
        #expect(pageview.context?.appVersion == "1.2")
        #expect(pageview.context?.additional["team_id"] == .integer(2))
        #expect(!pageview.ndjsonLine.contains(Array("phc_secret".utf8)))

        let identify = try Self.event(
            #"{"event":"$identify","distinct_id":"user@x","properties":{"$anon_distinct_id":"anon-1","$set":{"email":"e"}},"timestamp":"2026-11-20T10:00:00Z"}"#
        )
        #expect(identify.kind == .identify)
        #expect(identify.userID == "user@x")
        #expect(identify.anonymousID == "anon-1")
        let alias = try Self.event(
            #"{"event":"$create_alias","distinct_id":"u","properties":{"alias":"old"},"timestamp":"2026-11-20T10:00:00Z"}"#
        )
        #expect(alias.kind == .alias)
        #expect(alias.previousID == "old")
        let group = try Self.event(
            #"{"event":"$groupidentify","distinct_id":"u","properties":{"$group_type":"company","$group_key":"acme","$group_set":{"name":"Acme"}},"timestamp":"2026-11-20T10:00:00Z"}"#
        )
        #expect(group.kind == .group)
        #expect(group.groupID == "acme")
        let timed = try Self.event(#"{"event":"x","distinct_id":"u","properties":{"$time":1700000000.25}}"#)
        #expect(timed.occurredAt == Timestamp(nanosecondsSinceEpoch: 1_700_000_000_250_000_000))
        // Past 2262 a time in nanoseconds would overflow: refused with its reason, never a trap.
        for seconds in ["99999999999", "9300000000", "-9300000000"] {
            let far = Self.decode(#"{"event":"x","distinct_id":"u","properties":{"$time":\#(seconds)}}"#, .posthog)
            if case .failure(let error)? = far.results.first {
                #expect(error.code == .invalidTimestamp && error.path == "$.properties.$time", "\(error)")
            } else {
                Issue.record("$time \(seconds) must be refused")
            }
        }
        if case .failure(let error)? = Self.decode(#"{"event":"x","timestamp":"2026-11-20T10:00:00Z"}"#, .posthog)
            .results.first
        {
            #expect(error.path == "$.distinct_id")
        } else {
            Issue.record("a PostHog event without distinct_id must be refused")
        }
    }

    @Test("auto decides per line")
    func detection() {
        #expect(Self.decode(#"{"name":"a","occurred_at":"2026-11-20T10:00:00Z"}"#).format == .tally)
        #expect(
            Self.decode(#"{"type":"screen","name":"Home","userId":"u","timestamp":"2026-11-20T10:00:00Z"}"#).format
                == .segment
        )
        #expect(
            Self.decode(#"{"event":"$pageview","distinct_id":"u","timestamp":"2026-11-20T10:00:00Z"}"#).format
                == .posthog
        )
        #expect(
            Self.decode(
                #"{"api_key":"k","batch":[{"event":"e","distinct_id":"u","timestamp":"2026-11-20T10:00:00Z"}]}"#
            ).format == .posthog
        )
        #expect(
            Self.decode(#"{"batch":[{"type":"track","event":"e","userId":"u","timestamp":"2026-11-20T10:00:00Z"}]}"#)
                .format == .segment
        )
    }
}
