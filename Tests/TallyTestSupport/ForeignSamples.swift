import Foundation
import TallyCore

/// Segment and PostHog NDJSON written from their specs, with what tally must make of it known
/// independently of tally's mapping code: per-name counts, identity counts, and each event's
/// properties exactly as sent (keys in byte order, compact, so a stored copy can be compared byte
/// for byte).
public struct ForeignSamples: Sendable {
    /// One message as sent.
    public struct Sent: Sendable {
        /// The id as sent (`messageId` / `uuid`), lowercased canonical when it was a UUID.
        public var id: String
        /// Whether the id was a UUID (then it is the event id; else it is kept as `source_id`).
        public var idIsUUID: Bool
        /// The stored name.
        public var name: String
        /// `track`, `identify`, `group` or `alias`.
        public var kind: String
        /// The properties (traits for identity calls) as sent: compact, keys in byte order.
        public var properties: String
    }

    /// The Segment file's lines.
    public var segmentLines: [String] = []
    /// The PostHog file's lines.
    public var postHogLines: [String] = []
    /// Every message of both files.
    public var sent: [Sent] = []

    /// Events per stored name.
    public var eventCounts: [String: Int] {
        sent.filter { $0.kind == "track" }.reduce(into: [:]) { $0[$1.name, default: 0] += 1 }
    }

    /// Identity records per kind.
    public var identityCounts: [String: Int] {
        sent.filter { $0.kind != "track" }.reduce(into: [:]) { $0[$1.kind, default: 0] += 1 }
    }

    /// `count` Segment messages (in singles and batch wrappers) and `count` PostHog events.
    public init(count: Int, seed: UInt64 = 42) {
        var random = SeededRandom(seed)
        var batch: [String] = []
        for index in 0..<count {
            let (line, sent) = Self.segmentMessage(index, &random)
            self.sent.append(sent)
            if index % 5 == 4 {
                batch.append(line)
                if batch.count == 3 {
                    segmentLines.append(
                        #"{"batch":[\#(batch.joined(separator: ","))],"sentAt":"2026-11-20T12:00:00.000Z","context":{"library":{"name":"analytics-node","version":"1.0.0"}}}"#
                    )
                    batch = []
                }
            } else {
                segmentLines.append(line)
            }
        }
        if !batch.isEmpty { segmentLines.append(#"{"batch":[\#(batch.joined(separator: ","))]}"#) }
        for index in 0..<count {
            let (line, sent) = Self.postHogEvent(index, &random)
            self.sent.append(sent)
            postHogLines.append(line)
        }
    }

    static let trackNames = ["Order Completed", "Product Viewed", "Checkout Started", "Products Searched", "Signed Up"]

    static func segmentMessage(_ index: Int, _ random: inout SeededRandom) -> (String, Sent) {
        let (idText, id, isUUID) = messageID(index, &random)
        let time = "2026-11-\(10 + index % 10)T\(10 + index % 12):0\(index % 10):00.\(100 + index % 900)Z"
        let who = index % 3 == 0 ? #""anonymousId":"anon-\#(index % 17)""# : #""userId":"user-\#(index % 23)""#
        let context =
            #""context":{"app":{"build":"42\#(index % 9)","name":"Shop","version":"4.\#(index % 4).0"},"locale":"en-US","os":{"name":"iOS","version":"17.\#(index % 3)"}}"#
        switch index % 9 {
        case 0, 1, 2, 3:
            let name = trackNames[index % trackNames.count]
            let properties: String
            if name == "Order Completed" {
                let items = (0..<(1 + index % 3)).map { item in
                    #"{"name":"Item \#(item)","price":\#(item + 1)9.99,"product_id":"p-\#(index)-\#(item)","quantity":\#(item + 1),"tags":["a","b"]}"#
                }
                properties =
                    #"{"coupon":null,"currency":"USD","order_id":"o-\#(index)","products":[\#(items.joined(separator: ","))],"revenue":25.00,"total":27.50}"#
            } else {
                properties = #"{"category":"Games","label":"Ünïcode ✓ \#(random.next() % 1000)","value":\#(index)}"#
            }
            let line =
                #"{"type":"track","event":"\#(name)","messageId":"\#(idText)",\#(who),"originalTimestamp":"\#(time)","timestamp":"\#(time)","properties":\#(properties),\#(context),"integrations":{"All":true}}"#
            return (line, Sent(id: id, idIsUUID: isUUID, name: name, kind: "track", properties: properties))
        case 4:
            let properties =
                #"{"name":"Pricing","path":"/pricing","referrer":"https://a.example/","url":"https://shop.example/pricing"}"#
            let line =
                #"{"type":"page","name":"Pricing","messageId":"\#(idText)",\#(who),"timestamp":"\#(time)","properties":\#(properties)}"#
            return (line, Sent(id: id, idIsUUID: isUUID, name: "page", kind: "track", properties: properties))
        case 5:
            let properties = #"{"name":"Cart","variation":"blue"}"#
            let line =
                #"{"type":"screen","name":"Cart","messageId":"\#(idText)",\#(who),"timestamp":"\#(time)","properties":\#(properties),\#(context)}"#
            return (line, Sent(id: id, idIsUUID: isUUID, name: "screen", kind: "track", properties: properties))
        case 6:
            let traits =
                #"{"address":{"city":"Berlin","postalCode":"10115"},"email":"u\#(index)@example.com","plan":"pro"}"#
            let line =
                #"{"type":"identify","messageId":"\#(idText)","userId":"user-\#(index % 23)","anonymousId":"anon-\#(index % 17)","timestamp":"\#(time)","traits":\#(traits)}"#
            return (line, Sent(id: id, idIsUUID: isUUID, name: "identify", kind: "identify", properties: traits))
        case 7:
            let traits = #"{"employees":\#(index),"industry":"Retail","name":"Acme"}"#
            let line =
                #"{"type":"group","messageId":"\#(idText)",\#(who),"groupId":"g-\#(index % 4)","timestamp":"\#(time)","traits":\#(traits)}"#
            return (line, Sent(id: id, idIsUUID: isUUID, name: "group", kind: "group", properties: traits))
        default:
            let line =
                #"{"type":"alias","messageId":"\#(idText)","userId":"user-\#(index % 23)","previousId":"anon-\#(index % 17)","timestamp":"\#(time)"}"#
            return (line, Sent(id: id, idIsUUID: isUUID, name: "alias", kind: "alias", properties: "{}"))
        }
    }

    static func postHogEvent(_ index: Int, _ random: inout SeededRandom) -> (String, Sent) {
        let (idText, id, isUUID) = messageID(index + 100_000, &random)
        let time = "2026-11-\(10 + index % 10) \(10 + index % 12):0\(index % 10):01.\(100_000 + index % 900_000)"
        switch index % 6 {
        case 0, 1:
            let properties =
                #"{"$current_url":"https://shop.example/p/\#(index)","$os":"Mac OS X","$set":{"plan":"pro"},"$set_once":{"first_seen":"2026-11-01"},"distinct_id":"ph-\#(index % 13)"}"#
            return (
                #"{"uuid":"\#(idText)","event":"$pageview","timestamp":"\#(time)","properties":\#(properties),"team_id":1}"#,
                Sent(id: id, idIsUUID: isUUID, name: "$pageview", kind: "track", properties: properties)
            )
        case 2:
            let properties = #"{"$screen_name":"Cart","$session_id":"s-\#(index % 5)"}"#
            return (
                #"{"uuid":"\#(idText)","event":"$screen","distinct_id":"ph-\#(index % 13)","timestamp":"\#(time)","properties":\#(properties)}"#,
                Sent(id: id, idIsUUID: isUUID, name: "$screen", kind: "track", properties: properties)
            )
        case 3:
            let properties = #"{"items":[{"id":1},{"id":2}],"plan":"pro","price":9.90}"#
            return (
                #"{"uuid":"\#(idText)","event":"subscription purchased","distinct_id":"ph-\#(index % 13)","timestamp":"\#(time)","properties":\#(properties)}"#,
                Sent(id: id, idIsUUID: isUUID, name: "subscription purchased", kind: "track", properties: properties)
            )
        case 4:
            let properties = #"{"$anon_distinct_id":"anon-\#(index)","$set":{"email":"p\#(index)@example.com"}}"#
            return (
                #"{"uuid":"\#(idText)","event":"$identify","distinct_id":"ph-\#(index % 13)","timestamp":"\#(time)","properties":\#(properties)}"#,
                Sent(id: id, idIsUUID: isUUID, name: "$identify", kind: "identify", properties: properties)
            )
        default:
            let properties = #"{"$group_key":"acme","$group_set":{"name":"Acme"},"$group_type":"company"}"#
            return (
                #"{"uuid":"\#(idText)","event":"$groupidentify","distinct_id":"ph-\#(index % 13)","timestamp":"\#(time)","properties":\#(properties)}"#,
                Sent(id: id, idIsUUID: isUUID, name: "$groupidentify", kind: "group", properties: properties)
            )
        }
    }

    /// Ids in every spelling real sources use: analytics.js `ajs-next-…`, 32-hex hashes, canonical,
    /// upper-case and braced UUIDs. Returns the text sent, the key a store is checked by, and
    /// whether it is a UUID.
    static func messageID(_ index: Int, _ random: inout SeededRandom) -> (String, String, Bool) {
        let high = random.next()
        let low = random.next()
        let uuid = EventID(
            high: (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x4000,
            low: (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        )
        let canonical = uuid.description
        switch index % 5 {
        case 0:
            return (
                "ajs-next-1700000\(index)-\(String(high, radix: 16))",
                "ajs-next-1700000\(index)-\(String(high, radix: 16))", false
            )
        case 1: return (canonical, canonical, true)
        case 2: return (canonical.uppercased(), canonical, true)
        case 3: return (canonical.replacingOccurrences(of: "-", with: ""), canonical, true)
        default: return ("msg_\(String(low, radix: 36))", "msg_\(String(low, radix: 36))", false)
        }
    }
}

/// SplitMix64: reproducible test data.
public struct SeededRandom: Sendable {
    private var state: UInt64

    /// A generator seeded with `seed`.
    public init(_ seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
