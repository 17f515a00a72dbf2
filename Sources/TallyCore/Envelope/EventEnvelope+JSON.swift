extension EventEnvelope {
    /// Reads an envelope from one NDJSON line.
    ///
    /// - Parameter fallbackID: the id to use when the line has no `event_id` (ingest derives one
    ///   from the line's bytes); without one, a missing `event_id` is an error.
    public init(ndjsonLine line: some Collection<UInt8>, fallbackID: EventID? = nil) throws(EnvelopeDecodingError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            throw EnvelopeDecodingError(.malformedJSON, path: "$", message: error.description)
        }
        try self.init(json: value, fallbackID: fallbackID)
    }

    /// Reads an envelope from a parsed JSON object. Unknown top-level keys are ignored; a known
    /// key given twice is refused (which one was meant cannot be known).
    public init(json: JSONValue, fallbackID: EventID? = nil) throws(EnvelopeDecodingError) {
        guard let members = json.objectMembers else {
            throw EnvelopeDecodingError(.notAnObject, path: "$", message: "an event must be a JSON object")
        }
        var fields: [String: JSONValue] = [:]
        for member in members where Self.knownKeys.contains(member.key) {
            guard fields.updateValue(member.value, forKey: member.key) == nil else {
                throw EnvelopeDecodingError(.duplicateField, path: "$.\(member.key)", message: "given twice")
            }
        }
        let eventID: EventID
        if let text = try Self.string(fields, "event_id") {
            guard let parsed = EventID(text) else {
                throw EnvelopeDecodingError(.invalidEventID, path: "$.event_id", message: "not a UUID")
            }
            eventID = parsed
        } else if let fallbackID {
            eventID = fallbackID
        } else {
            throw EnvelopeDecodingError(.missingField, path: "$.event_id", message: "required")
        }
        guard let name = try Self.string(fields, "name") else {
            throw EnvelopeDecodingError(.missingField, path: "$.name", message: "required")
        }
        guard let occurredAt = try Self.timestamp(fields, "occurred_at") else {
            throw EnvelopeDecodingError(.missingField, path: "$.occurred_at", message: "required")
        }
        self.init(
            eventID: eventID,
            name: name,
            feature: try Self.string(fields, "feature"),
            properties: try Self.properties(fields["properties"]),
            occurredAt: occurredAt,
            sentAt: try Self.timestamp(fields, "sent_at"),
            receivedAt: try Self.timestamp(fields, "received_at"),
            userID: try Self.string(fields, "user_id"),
            anonymousID: try Self.string(fields, "anonymous_id"),
            sessionID: try Self.string(fields, "session_id"),
            context: try Self.context(fields["context"]),
            schemaVersion: try Self.string(fields, "schema_version"),
            violations: try Self.violations(fields["violations"])
        )
    }

    private static let knownKeys: Set<String> = [
        "event_id", "name", "feature", "properties", "occurred_at", "sent_at", "received_at", "user_id",
        "anonymous_id", "session_id", "context", "schema_version", "violations",
    ]

    /// A string field; `null` counts as absent.
    private static func string(_ fields: [String: JSONValue], _ key: String, prefix: String = "$")
        throws(EnvelopeDecodingError) -> String?
    {
        switch fields[key] {
        case nil, .null?: return nil
        case .string(let string)?: return string
        case let other?:
            throw EnvelopeDecodingError(
                .wrongType,
                path: "\(prefix).\(key)",
                message: "expected a string, got \(other.typeName)"
            )
        }
    }

    private static func timestamp(_ fields: [String: JSONValue], _ key: String) throws(EnvelopeDecodingError)
        -> Timestamp?
    {
        guard let text = try string(fields, key) else { return nil }
        guard let timestamp = Timestamp(rfc3339: text) else {
            throw EnvelopeDecodingError(
                .invalidTimestamp,
                path: "$.\(key)",
                message: "expected RFC 3339 like 2026-11-22T10:15:00.000Z"
            )
        }
        return timestamp
    }

    private static func properties(_ value: JSONValue?) throws(EnvelopeDecodingError) -> EventProperties {
        guard let value, value != .null else { return EventProperties() }
        guard let members = value.objectMembers else {
            throw EnvelopeDecodingError(
                .wrongType,
                path: "$.properties",
                message: "expected an object, got \(value.typeName)"
            )
        }
        var properties: [EventProperties.Pair] = []
        properties.reserveCapacity(members.count)
        for member in members {
            let path = "$.properties.\(member.key)"
            let scalar: PropertyValue
            switch member.value {
            case .string(let string): scalar = .string(string)
            case .bool(let bool): scalar = .bool(bool)
            case .null: scalar = .null
            case .number(let number):
                if number.isIntegerLiteral, let integer = Int64(number.text) {
                    scalar = .integer(integer)
                } else {
                    let double = number.doubleValue
                    guard double.isFinite else {
                        throw EnvelopeDecodingError(.wrongType, path: path, message: "number out of range")
                    }
                    scalar = .number(double)
                }
            case .array, .object:
                throw EnvelopeDecodingError(
                    .wrongType,
                    path: path,
                    message: "expected a scalar, got \(member.value.typeName)"
                )
            }
            properties.append((member.key, scalar))
        }
        let result = EventProperties(pairs: properties)
        // Sorted, duplicates are neighbours.
        let sorted = result.sortedPairs
        for index in sorted.indices.dropFirst() where sorted[index].key == sorted[index - 1].key {
            throw EnvelopeDecodingError(
                .duplicateField,
                path: "$.properties.\(sorted[index].key)",
                message: "given twice"
            )
        }
        return result
    }

    private static func violations(_ value: JSONValue?) throws(EnvelopeDecodingError) -> [String]? {
        guard let value, value != .null else { return nil }
        guard case .array(let elements) = value, let strings = Optional(elements.compactMap(\.stringValue)),
            strings.count == elements.count
        else {
            throw EnvelopeDecodingError(.wrongType, path: "$.violations", message: "expected an array of strings")
        }
        return strings
    }

    static func context(_ value: JSONValue?) throws(EnvelopeDecodingError) -> EventContext? {
        guard let value, value != .null else { return nil }
        guard let members = value.objectMembers else {
            throw EnvelopeDecodingError(
                .wrongType,
                path: "$.context",
                message: "expected an object, got \(value.typeName)"
            )
        }
        let fields = Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        return EventContext(
            appVersion: try string(fields, "app_version", prefix: "$.context"),
            appBuild: try string(fields, "app_build", prefix: "$.context"),
            platform: try string(fields, "platform", prefix: "$.context"),
            osVersion: try string(fields, "os_version", prefix: "$.context"),
            locale: try string(fields, "locale", prefix: "$.context")
        )
    }
}
