package import TallyCore

/// Maps PostHog events (capture API payloads and batch-export rows) to envelopes, field by field
/// (docs/formats.md has the table).
///
/// - `event` is the name as sent (`$pageview`, `$screen`, `signed_up`); `$identify`,
///   `$create_alias` and `$groupidentify` become identity records.
/// - `uuid` is the event id (a UUID as itself, anything else by its UUIDv5, kept as `source_id`);
///   without one, the id is derived from the event's content, never from `sent_at` or receipt time.
/// - `distinct_id` (top level, else `properties.distinct_id`) is the user id; `$device_id` the
///   anonymous id; `$session_id` the session. `properties` are kept whole, `$set` and `$set_once`
///   included.
/// - `occurred_at` is `timestamp` (RFC 3339 or `YYYY-MM-DD HH:MM:SS.ffffff`), else
///   `properties.$time` (Unix seconds), else `created_at`, else (at a collector) the time the
///   collector received it.
/// - The context fields come from `$app_version`, `$app_build`, `$os`, `$os_version` and
///   `$locale`; other top-level members of export rows (`team_id`, `person_id`,
///   `person_properties`, `elements_chain`, `ip`, …) are kept in the context. `api_key` and
///   `token` (project keys) are not stored.
package struct PostHogEventMapper: Sendable {
    /// Members read into the envelope itself; every other top-level member goes to the context.
    static let mappedKeys: Set<String> = [
        "event", "uuid", "distinct_id", "properties", "timestamp", "sent_at", "created_at", "api_key", "token",
        "type",
    ]

    /// A mapper.
    package init() {}

    /// The envelopes of one line: one event, or every event of `{"batch": [...]}` (whose `api_key`
    /// is dropped and whose `sent_at` applies to events without one).
    /// `arrivedAt`: when a collector received the line, the time of an event that has none.
    package func map(_ line: ForeignLine, arrivedAt: Timestamp? = nil) -> [Result<EventEnvelope, EnvelopeDecodingError>]
    {
        line.mapMessages { (event, path, batch) throws(EnvelopeDecodingError) in
            try map(event: event, path: path, batch: batch, arrivedAt: arrivedAt)
        }
    }

    private func map(
        event message: ForeignLine.Message,
        path: String,
        batch: ForeignLine.Message?,
        arrivedAt: Timestamp?
    ) throws(EnvelopeDecodingError) -> EventEnvelope {
        func field(_ key: String) -> JSONValue? { message.member(key) }
        guard let name = try ForeignValues.string(field("event"), path: "\(path).event") else {
            throw EnvelopeDecodingError(.missingField, path: "\(path).event", message: "required")
        }
        let properties = try message.properties("properties", path: path) ?? EventProperties()
        func property(_ key: String) -> String? {
            switch properties[key] {
            case .string(let text)?: text
            case .integer(let integer)?: String(integer)
            default: nil
            }
        }
        let distinctID =
            try ForeignValues.string(field("distinct_id"), path: "\(path).distinct_id") ?? property("distinct_id")
        guard let distinctID else {
            throw EnvelopeDecodingError(
                .missingField,
                path: "\(path).distinct_id",
                message: "distinct_id is required (top level or in properties)"
            )
        }
        var sentAt = try ForeignValues.timestamp(field("sent_at"), path: "\(path).sent_at")
        if sentAt == nil, let batch {
            sentAt = try ForeignValues.timestamp(batch.member("sent_at"), path: "$.sent_at")
        }
        var occurredAt = try ForeignValues.timestamp(field("timestamp"), path: "\(path).timestamp")
        if occurredAt == nil, let seconds = properties["$time"] {
            guard let time = Self.unixSeconds(seconds) else {
                throw EnvelopeDecodingError(
                    .invalidTimestamp,
                    path: "\(path).properties.$time",
                    message: "expected Unix seconds from 1677-09-22 to 2262-04-11"
                )
            }
            occurredAt = time
        }
        if occurredAt == nil {
            occurredAt = try ForeignValues.timestamp(field("created_at"), path: "\(path).created_at")
        }
        // PostHog's rule: an event without a time happened when it was received.
        guard let occurredAt = occurredAt ?? arrivedAt else {
            throw EnvelopeDecodingError(
                .missingField,
                path: "\(path).timestamp",
                message: "no time: timestamp, properties.$time or created_at is required"
            )
        }
        let kind: EventKind
        var userID: String? = distinctID
        var anonymousID = property("$device_id")
        var groupID: String?
        var previousID: String?
        switch name {
        case "$identify":
            kind = .identify
            anonymousID = property("$anon_distinct_id") ?? anonymousID
        case "$create_alias":
            kind = .alias
            previousID = property("alias")
            if previousID == nil {
                throw EnvelopeDecodingError(
                    .missingField,
                    path: "\(path).properties.alias",
                    message: "a $create_alias event needs properties.alias"
                )
            }
        case "$groupidentify":
            kind = .group
            groupID = property("$group_key")
            if groupID == nil {
                throw EnvelopeDecodingError(
                    .missingField,
                    path: "\(path).properties.$group_key",
                    message: "a $groupidentify event needs properties.$group_key"
                )
            }
            if property("$anon_distinct_id") == distinctID { userID = nil }
        default:
            kind = .track
        }
        if userID == nil, anonymousID == nil { userID = distinctID }
        var context = EventContext(
            appVersion: property("$app_version"),
            appBuild: property("$app_build"),
            platform: property("$os"),
            osVersion: property("$os_version"),
            locale: property("$locale")
        )
        var other: [String: PropertyValue] = [:]
        var order: [String] = []
        for member in message.members where !Self.mappedKeys.contains(member.key) {
            if other.updateValue(PropertyValue(member.value), forKey: member.key) == nil { order.append(member.key) }
        }
        for (key, value) in message.objects where !Self.mappedKeys.contains(key) {
            if other.updateValue(
                .json(RawJSON(.object(value.sortedPairs.map { JSONMember(key: $0.key, value: $0.value.jsonValue) }))),
                forKey: key
            ) == nil {
                order.append(key)
            }
        }
        context.fillKnownFields(from: order.map { ($0, other[$0]!) })
        let id = try ForeignValues.eventID(field("uuid"), path: "\(path).uuid")
        var event = EventEnvelope(
            eventID: id?.id ?? EventID(high: 0, low: 0),
            name: name,
            properties: properties,
            occurredAt: occurredAt,
            sentAt: sentAt,
            userID: userID,
            anonymousID: anonymousID,
            sessionID: property("$session_id"),
            context: context.isEmpty ? nil : context,
            sourceID: id?.sourceID,
            kind: kind,
            groupID: groupID,
            previousID: previousID
        )
        if id == nil { event.eventID = event.contentID }
        return event
    }

    /// `$time`: Unix seconds with a fraction.
    private static func unixSeconds(_ value: PropertyValue) -> Timestamp? {
        let seconds: Double
        switch value {
        case .integer(let integer): seconds = Double(integer)
        case .number(let number): seconds = number
        case .json(let raw): seconds = raw.value.numberValue ?? .nan
        default: return nil
        }
        // Nanoseconds in 64 bits: 1677 to 2262; outside, the time is refused, not trapped on.
        guard seconds.isFinite, abs(seconds) < 9_223_372_036 else { return nil }
        return Timestamp(nanosecondsSinceEpoch: Int64((seconds * 1_000_000).rounded()) * 1_000)
    }
}

extension JSONValue {
    /// The number as a double, if this is a number.
    fileprivate var numberValue: Double? {
        if case .number(let number) = self { number.doubleValue } else { nil }
    }
}
