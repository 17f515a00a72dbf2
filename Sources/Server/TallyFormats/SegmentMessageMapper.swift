package import TallyCore

/// Maps Segment spec messages (https://segment.com/docs/connections/spec/) to envelopes,
/// field by field (docs/formats.md has the table).
///
/// - `track` keeps its `event` as the name (`Order Completed`); `page` and `screen` are events
///   named `page` and `screen`, with the call's `name` and `category` added to the properties
///   when these do not have them; `identify`, `group` and `alias` become identity records.
/// - `messageId` is the event id (a UUID as itself, anything else by its UUIDv5, kept as
///   `source_id`); without one, the id is derived from the message's content, never from
///   `sentAt` or `receivedAt`.
/// - `occurred_at` is `originalTimestamp` (the device's clock, which no re-send changes) when
///   present, else `timestamp`, else `receivedAt`, else `sentAt`, else (at a collector) the
///   time the collector received it.
/// - `context` keeps every member; `app.version`, `app.build`, `os.name`, `os.version` and
///   `locale` also fill tally's context fields. `integrations` is kept in the context too.
package struct SegmentMessageMapper: Sendable {
    /// The call types of the spec.
    package static let callTypes: Set<String> = ["track", "page", "screen", "identify", "group", "alias"]

    /// A mapper.
    package init() {}

    /// The envelopes of one line: one message, or every message of a batch wrapper (whose
    /// `context` merges under each message's own and whose `sentAt` applies to messages without one).
    /// Each result is an envelope or the reason its message was refused (path inside the line).
    /// `arrivedAt`: when a collector received the line, the time of a message that has none.
    /// `impliedType`: the call type of a message that names none (the route it was posted to).
    package func map(
        _ line: ForeignLine,
        arrivedAt: Timestamp? = nil,
        impliedType: String? = nil
    ) -> [Result<EventEnvelope, EnvelopeDecodingError>] {
        line.mapMessages { (message, path, batch) throws(EnvelopeDecodingError) in
            try map(message: message, path: path, batch: batch, arrivedAt: arrivedAt, impliedType: impliedType)
        }
    }

    private func map(
        message: ForeignLine.Message,
        path: String,
        batch: ForeignLine.Message?,
        arrivedAt: Timestamp?,
        impliedType: String?
    ) throws(EnvelopeDecodingError) -> EventEnvelope {
        func field(_ key: String) -> JSONValue? { message.member(key) }
        guard let type = try ForeignValues.string(field("type"), path: "\(path).type") ?? impliedType else {
            throw EnvelopeDecodingError(
                .missingField,
                path: "\(path).type",
                message: "required (track, page, screen, …)"
            )
        }
        guard Self.callTypes.contains(type) else {
            throw EnvelopeDecodingError(
                .wrongType,
                path: "\(path).type",
                message: "expected one of track, page, screen, identify, group, alias"
            )
        }
        let kind: EventKind
        let name: String
        var properties: EventProperties
        switch type {
        case "track":
            guard let event = try ForeignValues.string(field("event"), path: "\(path).event") else {
                throw EnvelopeDecodingError(
                    .missingField,
                    path: "\(path).event",
                    message: "a track call needs its event"
                )
            }
            kind = .track
            name = event
            properties = try message.properties("properties", path: path) ?? EventProperties()
        case "page", "screen":
            kind = .track
            name = type
            properties = try message.properties("properties", path: path) ?? EventProperties()
            for key in ["name", "category"] where !properties.contains(key) {
                if let value = try ForeignValues.string(field(key), path: "\(path).\(key)") {
                    properties[key] = .string(value)
                }
            }
        default:
            kind = EventKind(rawValue: type)!
            name = type
            properties = try message.properties("traits", path: path) ?? EventProperties()
        }
        var sentAt = try ForeignValues.timestamp(field("sentAt"), path: "\(path).sentAt")
        if sentAt == nil, let batch {
            sentAt = try ForeignValues.timestamp(batch.member("sentAt"), path: "$.sentAt")
        }
        let receivedAt = try ForeignValues.timestamp(field("receivedAt"), path: "\(path).receivedAt")
        let original = try ForeignValues.timestamp(field("originalTimestamp"), path: "\(path).originalTimestamp")
        let timestamp = try ForeignValues.timestamp(field("timestamp"), path: "\(path).timestamp")
        // Segment's rule: a message without a time happened when it was received.
        let occurredAt = original ?? timestamp ?? receivedAt ?? sentAt ?? arrivedAt
        guard let occurredAt else {
            throw EnvelopeDecodingError(
                .missingField,
                path: "\(path).timestamp",
                message: "no time: originalTimestamp, timestamp, receivedAt or sentAt is required"
            )
        }
        let userID = try ForeignValues.string(field("userId"), path: "\(path).userId")
        let anonymousID = try ForeignValues.string(field("anonymousId"), path: "\(path).anonymousId")
        if userID == nil, anonymousID == nil {
            throw EnvelopeDecodingError(
                .missingField,
                path: "\(path).userId",
                message: "userId or anonymousId is required"
            )
        }
        let context = try Self.context(
            message.properties("context", path: path),
            batchContext: batch?.properties("context", path: "$"),
            integrations: field("integrations")
        )
        let id = try ForeignValues.eventID(field("messageId"), path: "\(path).messageId")
        let groupID = kind == .group ? try ForeignValues.string(field("groupId"), path: "\(path).groupId") : nil
        let previousID =
            kind == .alias ? try ForeignValues.string(field("previousId"), path: "\(path).previousId") : nil
        if kind == .group, groupID == nil {
            throw EnvelopeDecodingError(
                .missingField,
                path: "\(path).groupId",
                message: "a group call needs its groupId"
            )
        }
        if kind == .alias, previousID == nil {
            throw EnvelopeDecodingError(
                .missingField,
                path: "\(path).previousId",
                message: "an alias call needs previousId"
            )
        }
        return Self.envelope(
            Call(
                kind: kind,
                name: name,
                properties: properties,
                occurredAt: occurredAt,
                sentAt: sentAt,
                receivedAt: receivedAt,
                userID: userID,
                anonymousID: anonymousID,
                context: context,
                id: id,
                groupID: groupID,
                previousID: previousID
            )
        )
    }

    /// A message's fields once read and checked, in tally's terms.
    struct Call {
        var kind: EventKind
        var name: String
        var properties: EventProperties
        var occurredAt: Timestamp
        var sentAt: Timestamp?
        var receivedAt: Timestamp?
        var userID: String?
        var anonymousID: String?
        var context: EventContext?
        var id: (id: EventID, sourceID: String?)?
        var groupID: String?
        var previousID: String?
    }

    /// The envelope of a checked call; without a `messageId`, its id derives from its content.
    static func envelope(_ call: Call) -> EventEnvelope {
        var event = EventEnvelope(
            eventID: call.id?.id ?? EventID(high: 0, low: 0),
            name: call.name,
            properties: call.properties,
            occurredAt: call.occurredAt,
            sentAt: call.sentAt,
            receivedAt: call.receivedAt,
            userID: call.userID,
            anonymousID: call.anonymousID,
            context: call.context,
            sourceID: call.id?.sourceID,
            kind: call.kind,
            groupID: call.groupID,
            previousID: call.previousID
        )
        // tally's delivery library sends a sampled event's rate as `context.sampleRate` on this wire.
        if call.kind == .track, let rate = call.context?.additional["sampleRate"] {
            switch rate {
            case .number(let value) where value > 0 && value < 1: event.sampleRate = value
            default: break
            }
        }
        if call.id == nil { event.eventID = event.contentID }
        // tally's delivery library sends the tracker's feature as `context.feature` (set after the
        // content id, which therefore stays what it was without it).
        if call.kind == .track, case .string(let feature)? = call.context?.additional["feature"], !feature.isEmpty {
            event.feature = feature
        }
        // ... and an event whose producer could only send strings as `context.stringProperties`.
        if call.kind == .track, case .bool(true)? = call.context?.additional["stringProperties"] {
            event.stringProperties = true
        }
        return event
    }

    /// The message's context over the batch's, `integrations` added; tally's fields filled from it.
    static func context(_ own: EventProperties?, batchContext: EventProperties?, integrations: JSONValue?)
        -> EventContext?
    {
        if let text = own?.text, batchContext == nil, integrations == nil || integrations == .null,
            let context = EventContext(segmentContext: text)
        {
            return context
        }
        var members: [EventProperties.Pair]
        if let own, let batchContext {
            var merged: [String: PropertyValue] = [:]
            var order: [String] = []
            for context in [batchContext, own] {
                for (key, value) in context.sortedPairs where merged.updateValue(value, forKey: key) == nil {
                    order.append(key)
                }
            }
            members = order.map { ($0, merged[$0]!) }
        } else {
            members = (own ?? batchContext)?.sortedPairs ?? []
        }
        if let integrations, integrations != .null, !members.contains(where: { $0.key == "integrations" }) {
            members.append(("integrations", PropertyValue(integrations)))
        }
        guard !members.isEmpty else { return nil }
        var context = EventContext()
        for member in members {
            switch member.key {
            case "app":
                context.appVersion = Self.text(member.value, "version")
                context.appBuild = Self.text(member.value, "build")
            case "os":
                context.platform = Self.text(member.value, "name")
                context.osVersion = Self.text(member.value, "version")
            default: break
            }
        }
        context.fillKnownFields(from: members)
        return context
    }

    /// A string (or number) member of an object value, read from its text without a tree.
    private static func text(_ object: PropertyValue, _ key: StaticString) -> String? {
        guard case .json(let raw) = object else { return nil }
        return raw.memberText(key)
    }
}
