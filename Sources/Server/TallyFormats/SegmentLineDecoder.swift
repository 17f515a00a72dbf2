package import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The fast path for a line holding one well-formed Segment message: each member is read
/// straight into its field, as ``EnvelopeDecoder`` reads tally's own lines, with no list of
/// members to search and no tree for the top level.
///
/// It handles only the ordinary case and declines everything else (a `batch` wrapper, a member
/// given twice, a value of an unexpected type, a timestamp that is not RFC 3339, any malformed
/// JSON or missing field): ``FormatDecoder`` then runs ``SegmentMessageMapper``, which is the
/// reference for every refusal and its message. Whatever this returns, the mapper returns too
/// (the format tests check both paths against each other).
package struct SegmentLineDecoder {
    /// The envelope of `line`, or nil to leave the line to the mapper. `impliedType`: the call type
    /// of a message that names none (the route it was posted to, `/v1/track`).
    package static func decode(_ line: UnsafeBufferPointer<UInt8>, impliedType: String? = nil) -> EventEnvelope? {
        var parser = JSONParser(bytes: line)
        var fields = Fields()
        do {
            parser.skipWhitespace()
            try parser.expect(UInt8(ascii: "{"))
            while true {
                parser.skipWhitespace()
                guard parser.peek() == UInt8(ascii: "\"") else { return nil }
                let key =
                    if let bytes = parser.plainStringBytes() {
                        Key(bytes)
                    } else {
                        try parser.withStringBytes { (bytes) throws(JSONError) in Key(bytes) }
                    }
                parser.skipWhitespace()
                try parser.expect(UInt8(ascii: ":"))
                parser.skipWhitespace()
                guard let key else {
                    try parser.skipValue(depth: 1)
                    try fields.expectNextMember(&parser)
                    continue
                }
                guard key != .declined, fields.seen & key.bit == 0 else { return nil }
                fields.seen |= key.bit
                guard try fields.read(key, &parser) else { return nil }
                if try !fields.expectNextMember(&parser) { break }
            }
            parser.skipWhitespace()
            guard parser.peek() == nil else { return nil }
        } catch {
            return nil
        }
        if fields.type == nil { fields.type = impliedType }
        return fields.envelope()
    }

    /// The members the mapping reads (others are checked as JSON and skipped); `declined` for
    /// those that need the mapper (`batch`) or another format (`occurred_at`).
    private enum Key: Int {
        case type, event, name, category, properties, traits, context, integrations, messageId
        case userId, anonymousId, groupId, previousId
        case sentAt, receivedAt, originalTimestamp, timestamp
        case declined

        var bit: UInt32 { 1 << UInt32(rawValue) }

        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            // A switch of literal comparisons: an array of candidates per call cost an allocation
            // per member (~700 instructions a key).
            func equals(_ literal: StaticString) -> Bool {
                memcmp(bytes.baseAddress!, literal.utf8Start, bytes.count) == 0
            }
            switch bytes.count {
            case 4 where equals("type"): self = .type
            case 4 where equals("name"): self = .name
            case 5 where equals("event"): self = .event
            case 5 where equals("batch"): self = .declined
            case 6 where equals("userId"): self = .userId
            case 6 where equals("traits"): self = .traits
            case 6 where equals("sentAt"): self = .sentAt
            case 7 where equals("context"): self = .context
            case 7 where equals("groupId"): self = .groupId
            case 8 where equals("category"): self = .category
            case 9 where equals("messageId"): self = .messageId
            case 9 where equals("timestamp"): self = .timestamp
            case 10 where equals("properties"): self = .properties
            case 10 where equals("previousId"): self = .previousId
            case 10 where equals("receivedAt"): self = .receivedAt
            case 11 where equals("anonymousId"): self = .anonymousId
            case 11 where equals("occurred_at"): self = .declined
            case 12 where equals("integrations"): self = .integrations
            case 17 where equals("originalTimestamp"): self = .originalTimestamp
            default: return nil
            }
        }
    }

    private struct Fields {
        var seen: UInt32 = 0
        var type: String?
        var event: String?
        var name: String?
        var category: String?
        var properties: EventProperties?
        var traits: EventProperties?
        var context: EventProperties?
        var integrations: JSONValue?
        var messageID: (id: EventID, sourceID: String?)?
        var userID: String?
        var anonymousID: String?
        var groupID: String?
        var previousID: String?
        var sentAt: Timestamp?
        var receivedAt: Timestamp?
        var originalTimestamp: Timestamp?
        var timestamp: Timestamp?

        /// Reads one member's value; false when the mapper should judge it.
        mutating func read(_ key: Key, _ parser: inout JSONParser) throws -> Bool {
            switch key {
            case .properties, .traits, .context:
                guard parser.peek() == UInt8(ascii: "{") else {
                    return parser.peek() == UInt8(ascii: "n") && skipNull(&parser)
                }
                // Kept in their text (the context too: its mapping reads the few members it needs).
                if let object = parser.parsePropertyText() {
                    switch key {
                    case .properties: properties = object
                    case .traits: traits = object
                    default: context = object
                    }
                    return true
                }
                let (object, duplicate) = try parser.parsePropertyObject()
                guard duplicate == nil else { return false }
                switch key {
                case .properties: properties = object
                case .traits: traits = object
                default: context = object
                }
            case .integrations:
                integrations = try parser.parseValue(depth: 1)
            case .sentAt, .receivedAt, .originalTimestamp, .timestamp:
                guard parser.peek() == UInt8(ascii: "\"") else {
                    return parser.peek() == UInt8(ascii: "n") && skipNull(&parser)
                }
                let time =
                    if let bytes = parser.plainStringBytes() {
                        Timestamp(rfc3339Bytes: bytes)
                    } else {
                        try parser.withStringBytes { (bytes) throws(JSONError) in Timestamp(rfc3339Bytes: bytes) }
                    }
                guard let time else { return false }
                switch key {
                case .sentAt: sentAt = time
                case .receivedAt: receivedAt = time
                case .originalTimestamp: originalTimestamp = time
                default: timestamp = time
                }
            case .messageId:
                guard parser.peek() == UInt8(ascii: "\"") else { return false }
                messageID =
                    if let bytes = parser.plainStringBytes() {
                        Self.messageID(bytes)
                    } else {
                        try parser.withStringBytes { (bytes) throws(JSONError) in Self.messageID(bytes) }
                    }
                return messageID != nil
            default:
                let text: String?
                switch parser.peek() ?? 0 {
                case UInt8(ascii: "\""): text = try parser.parseString()
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): text = try parser.parseNumberText()
                case UInt8(ascii: "n"): return skipNull(&parser)
                default: return false
                }
                switch key {
                case .type: type = text
                case .event: event = text
                case .name: name = text
                case .category: category = text
                case .userId: userID = text
                case .anonymousId: anonymousID = text
                case .groupId: groupID = text
                default: previousID = text
                }
            }
            return true
        }

        /// The event id of a `messageId` (a UUID as itself, else by name) and the id as sent when
        /// it is not a UUID; nil for an empty one.
        private static func messageID(_ bytes: UnsafeBufferPointer<UInt8>) -> (id: EventID, sourceID: String?)? {
            if let id = EventID(uuidText: bytes) { return (id, nil) }
            guard !bytes.isEmpty else { return nil }
            let text = String(decoding: bytes, as: UTF8.self)
            return (EventID(foreignID: text), text)
        }

        private func skipNull(_ parser: inout JSONParser) -> Bool {
            (try? parser.skipValue(depth: 1)) != nil
        }

        /// Consumes `,` (true: another member follows) or `}` (false).
        @discardableResult
        func expectNextMember(_ parser: inout JSONParser) throws(JSONError) -> Bool {
            parser.skipWhitespace()
            guard let next = parser.peek() else { throw JSONError(.unexpectedEnd, at: parser.offset) }
            try parser.expect(next)
            if next == UInt8(ascii: "}") { return false }
            guard next == UInt8(ascii: ",") else { throw JSONError(.unexpectedCharacter, at: parser.offset - 1) }
            return true
        }

        /// The envelope, or nil when a required field is missing (the mapper names it).
        func envelope() -> EventEnvelope? {
            guard let type, let occurredAt = originalTimestamp ?? timestamp ?? receivedAt ?? sentAt,
                userID != nil || anonymousID != nil
            else { return nil }
            let kind: EventKind
            var eventName = type
            var eventProperties: EventProperties
            switch type {
            case "track":
                guard let event else { return nil }
                kind = .track
                eventName = event
                eventProperties = properties ?? EventProperties()
            case "page", "screen":
                kind = .track
                eventProperties = properties ?? EventProperties()
                if let name, !eventProperties.contains("name") { eventProperties["name"] = .string(name) }
                if let category, !eventProperties.contains("category") {
                    eventProperties["category"] = .string(category)
                }
            case "identify", "group", "alias":
                kind = EventKind(rawValue: type)!
                eventProperties = traits ?? EventProperties()
            default:
                return nil
            }
            if kind == .group, groupID == nil { return nil }
            if kind == .alias, previousID == nil { return nil }
            return SegmentMessageMapper.envelope(
                SegmentMessageMapper.Call(
                    kind: kind,
                    name: eventName,
                    properties: eventProperties,
                    occurredAt: occurredAt,
                    sentAt: sentAt,
                    receivedAt: receivedAt,
                    userID: userID,
                    anonymousID: anonymousID,
                    context: SegmentMessageMapper.context(context, batchContext: nil, integrations: integrations),
                    id: messageID,
                    groupID: kind == .group ? groupID : nil,
                    previousID: kind == .alias ? previousID : nil
                )
            )
        }
    }
}
