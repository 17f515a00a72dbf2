#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Decodes one NDJSON line straight into an ``EventEnvelope``, without building a JSON tree.
///
/// The same RFC 8259 rules as ``JSONParser`` (whose scanning primitives it uses): every `n_`
/// file of JSONTestSuite is refused, UTF-8 is validated, nesting is bounded. Unknown top-level
/// keys are parsed (so the line must still be valid JSON) and ignored.
package struct EnvelopeDecoder: Sendable {
    /// The deepest nesting accepted inside unknown keys.
    package var maxDepth: Int

    /// A decoder.
    package init(maxDepth: Int = JSONParser.defaultMaxDepth) {
        self.maxDepth = maxDepth
    }

    /// Decodes `line`; `fallbackID` is used when it has no `event_id` (nil: the id is required).
    package func decode(_ line: UnsafeBufferPointer<UInt8>, fallbackID: @autoclosure () -> EventID?)
        throws(EnvelopeDecodingError) -> EventEnvelope
    {
        var parser = JSONParser(bytes: line, maxDepth: maxDepth)
        var fields = Fields()
        do {
            parser.skipWhitespace()
            guard parser.peek() == UInt8(ascii: "{") else {
                // Not an object: parse it anyway, to tell malformed JSON from a non-object.
                _ = try parser.parseDocument()
                throw EnvelopeDecodingError(.notAnObject, path: "$", message: "an event must be a JSON object")
            }
            try parser.expect(UInt8(ascii: "{"))
            parser.skipWhitespace()
            if parser.peek() == UInt8(ascii: "}") {
                try parser.expect(UInt8(ascii: "}"))
            } else {
                while true {
                    parser.skipWhitespace()
                    guard parser.peek() == UInt8(ascii: "\"") else {
                        throw JSONError(parser.peek() == nil ? .unexpectedEnd : .unexpectedCharacter, at: parser.offset)
                    }
                    let key = try parser.withStringBytes { (bytes) throws(JSONError) in Self.keyIndex(bytes) }
                    parser.skipWhitespace()
                    try parser.expect(UInt8(ascii: ":"))
                    parser.skipWhitespace()
                    try decodeField(key, parser: &parser, into: &fields)
                    parser.skipWhitespace()
                    guard let next = parser.peek() else { throw JSONError(.unexpectedEnd, at: parser.offset) }
                    try parser.expect(next)
                    if next == UInt8(ascii: "}") { break }
                    guard next == UInt8(ascii: ",") else {
                        throw JSONError(.unexpectedCharacter, at: parser.offset - 1)
                    }
                }
            }
            parser.skipWhitespace()
            guard parser.peek() == nil else { throw JSONError(.trailingContent, at: parser.offset) }
        } catch let error as JSONError {
            throw EnvelopeDecodingError(.malformedJSON, path: "$", message: error.description)
        } catch let error as EnvelopeDecodingError {
            throw error
        } catch {
            throw EnvelopeDecodingError(.malformedJSON, path: "$", message: "\(error)")
        }
        if let problem = fields.problem { throw problem }
        guard let eventID = fields.eventID ?? fallbackID() else {
            throw EnvelopeDecodingError(.missingField, path: "$.event_id", message: "required")
        }
        guard let name = fields.name else {
            throw EnvelopeDecodingError(.missingField, path: "$.name", message: "required")
        }
        guard let occurredAt = fields.occurredAt else {
            throw EnvelopeDecodingError(.missingField, path: "$.occurred_at", message: "required")
        }
        return EventEnvelope(
            eventID: eventID,
            name: name,
            feature: fields.feature,
            properties: fields.properties,
            occurredAt: occurredAt,
            sentAt: fields.sentAt,
            receivedAt: fields.receivedAt,
            userID: fields.userID,
            anonymousID: fields.anonymousID,
            sessionID: fields.sessionID,
            context: fields.context,
            schemaVersion: fields.schemaVersion,
            violations: fields.violations,
            stringProperties: fields.stringProperties,
            sourceID: fields.foreignID ?? fields.sourceID,
            kind: fields.kind,
            groupID: fields.groupID,
            previousID: fields.previousID,
            sampleRate: fields.sampleRate,
            deviceOccurredAt: fields.deviceOccurredAt
        )
    }

    /// Decodes `line`; an envelope without `event_id` gets ``EventEnvelope/contentID``, which a
    /// re-send of the same event reproduces (it leaves out `sent_at` and `received_at`).
    package func decodeDerivingMissingID(_ line: UnsafeBufferPointer<UInt8>) throws(EnvelopeDecodingError)
        -> EventEnvelope
    {
        var derived = false
        var event = try decode(
            line,
            fallbackID: {
                derived = true
                return EventID(high: 0, low: 0)
            }()
        )
        if derived { event.eventID = event.contentID }
        return event
    }

    private struct Fields {
        var seen: UInt32 = 0
        var eventID: EventID?
        var name: String?
        var feature: String?
        var properties = EventProperties()
        var occurredAt: Timestamp?
        var sentAt: Timestamp?
        var receivedAt: Timestamp?
        var userID: String?
        var anonymousID: String?
        var sessionID: String?
        var context: EventContext?
        var schemaVersion: String?
        var violations: [String]?
        var stringProperties = false
        var sourceID: String?
        var kind = EventKind.track
        var groupID: String?
        var previousID: String?
        var sampleRate: Double?
        var deviceOccurredAt: Timestamp?
        /// The `event_id` as sent when it was not a UUID.
        var foreignID: String?
        /// The first semantic problem; the line is still parsed to the end, so that malformed JSON wins.
        var problem: EnvelopeDecodingError?

        mutating func fail(_ code: EnvelopeDecodingError.Code, _ path: String, _ message: String) {
            if problem == nil { problem = EnvelopeDecodingError(code, path: path, message: message) }
        }
    }

    private static let keys: [String] = [
        "event_id", "name", "feature", "properties", "occurred_at", "sent_at", "received_at", "user_id",
        "anonymous_id", "session_id", "context", "schema_version", "violations", "source_id",
        "type", "group_id", "previous_id", "sample_rate", "device_occurred_at", "string_properties",
    ]

    /// The index in ``keys`` of a key's bytes: compared by length, then bytes, against static
    /// literals (no `String`, no array of arrays to retain).
    private static func keyIndex(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        switch bytes.count {
        case 4:
            if equals(bytes, "name") { return 1 }
            return equals(bytes, "type") ? 14 : nil
        case 7:
            if equals(bytes, "feature") { return 2 }
            if equals(bytes, "sent_at") { return 5 }
            if equals(bytes, "user_id") { return 7 }
            return equals(bytes, "context") ? 10 : nil
        case 8:
            if equals(bytes, "event_id") { return 0 }
            return equals(bytes, "group_id") ? 15 : nil
        case 9: return equals(bytes, "source_id") ? 13 : nil
        case 10:
            if equals(bytes, "properties") { return 3 }
            if equals(bytes, "session_id") { return 9 }
            return equals(bytes, "violations") ? 12 : nil
        case 11:
            if equals(bytes, "occurred_at") { return 4 }
            if equals(bytes, "previous_id") { return 16 }
            if equals(bytes, "sample_rate") { return 17 }
            return equals(bytes, "received_at") ? 6 : nil
        case 12: return equals(bytes, "anonymous_id") ? 8 : nil
        case 14: return equals(bytes, "schema_version") ? 11 : nil
        case 17: return equals(bytes, "string_properties") ? 19 : nil
        case 18: return equals(bytes, "device_occurred_at") ? 18 : nil
        default: return nil
        }
    }

    /// The `context` keys decoded into fields, by ``contextKeyIndex(_:)``.
    private static let contextKeys = ["app_version", "app_build", "platform", "os_version", "locale"]

    /// The index of a `context` key: app_version, app_build, platform, os_version, locale.
    private static func contextKeyIndex(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        switch bytes.count {
        case 11: return equals(bytes, "app_version") ? 0 : nil
        case 9: return equals(bytes, "app_build") ? 1 : nil
        case 8: return equals(bytes, "platform") ? 2 : nil
        case 10: return equals(bytes, "os_version") ? 3 : nil
        case 6: return equals(bytes, "locale") ? 4 : nil
        default: return nil
        }
    }

    @inline(__always)
    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        bytes.count == literal.utf8CodeUnitCount && memcmp(bytes.baseAddress!, literal.utf8Start, bytes.count) == 0
    }

    private func decodeField(_ index: Int?, parser: inout JSONParser, into fields: inout Fields) throws -> Void {
        guard let index else {
            _ = try parser.parseValue(depth: 0)
            return
        }
        let bit = UInt32(1) << UInt32(index)
        if fields.seen & bit != 0 { fields.fail(.duplicateField, "$.\(Self.keys[index])", "given twice") }
        fields.seen |= bit
        switch index {
        case 0:
            if parser.peek() == UInt8(ascii: "\"") {
                let (id, text) = try parser.withStringBytes { (bytes) throws(JSONError) -> (EventID?, String?) in
                    if let id = EventID(uuidText: bytes) { return (id, nil) }
                    return (nil, String(decoding: bytes, as: UTF8.self))
                }
                if let id {
                    fields.eventID = id
                } else if let text {
                    // Not a UUID: a foreign id (a Segment messageId, a hash), kept as sent.
                    if text.isEmpty {
                        fields.fail(.invalidEventID, "$.event_id", "must not be empty")
                    } else {
                        fields.eventID = EventID(foreignID: text)
                        fields.foreignID = text
                    }
                }
            } else {
                _ = try optionalString(&parser, Self.keys[index], &fields)
            }
        case 1: fields.name = try optionalString(&parser, Self.keys[index], &fields)
        case 2: fields.feature = try optionalString(&parser, Self.keys[index], &fields)
        case 3: fields.properties = try decodeProperties(&parser, &fields)
        case 4: fields.occurredAt = try timestamp(&parser, Self.keys[index], &fields)
        case 5: fields.sentAt = try timestamp(&parser, Self.keys[index], &fields)
        case 6: fields.receivedAt = try timestamp(&parser, Self.keys[index], &fields)
        case 7: fields.userID = try optionalString(&parser, Self.keys[index], &fields)
        case 8: fields.anonymousID = try optionalString(&parser, Self.keys[index], &fields)
        case 9: fields.sessionID = try optionalString(&parser, Self.keys[index], &fields)
        case 10: fields.context = try decodeContext(&parser, &fields)
        case 11: fields.schemaVersion = try optionalString(&parser, Self.keys[index], &fields)
        case 13: fields.sourceID = try optionalString(&parser, Self.keys[index], &fields)
        case 14:
            let text = try optionalString(&parser, Self.keys[index], &fields)
            if let text {
                if let kind = EventKind(rawValue: text) {
                    fields.kind = kind
                } else {
                    fields.fail(.wrongType, "$.type", "expected track, identify, group or alias")
                }
            }
        case 18: fields.deviceOccurredAt = try timestamp(&parser, Self.keys[index], &fields)
        case 19:
            switch try parser.parseValue(depth: 0) {
            case .null: break
            case .bool(let flag): fields.stringProperties = flag
            default: fields.fail(.wrongType, "$.string_properties", "expected true or false")
            }
        case 15: fields.groupID = try optionalString(&parser, Self.keys[index], &fields)
        case 16: fields.previousID = try optionalString(&parser, Self.keys[index], &fields)
        case 17:
            switch try parser.parseValue(depth: 0) {
            case .null: break
            case .number(let number) where (Double(number.text) ?? 0) > 0 && (Double(number.text) ?? 0) <= 1:
                let rate = Double(number.text) ?? 1
                fields.sampleRate = rate < 1 ? rate : nil
            default: fields.fail(.wrongType, "$.sample_rate", "expected a number greater than 0 and at most 1")
            }
        case 12:
            let value = try parser.parseValue(depth: 0)
            switch value {
            case .null: break
            case .array(let elements) where elements.allSatisfy({ $0.stringValue != nil }):
                fields.violations = elements.compactMap(\.stringValue)
            default: fields.fail(.wrongType, "$.violations", "expected an array of strings")
            }
        default: _ = try parser.parseValue(depth: 0)
        }
    }

    /// A string, or nil for `null`; anything else is a type problem (the value is still parsed).
    private func optionalString(_ parser: inout JSONParser, _ key: @autoclosure () -> String, _ fields: inout Fields)
        throws -> String?
    {
        switch parser.peek() {
        case UInt8(ascii: "\""): return try parser.parseString()
        case UInt8(ascii: "n"):
            if case .null = try parser.parseValue(depth: 0) { return nil }
        default:
            let value = try parser.parseValue(depth: 0)
            fields.fail(.wrongType, "$.\(key())", "expected a string, got \(value.typeName)")
        }
        return nil
    }

    private func timestamp(_ parser: inout JSONParser, _ key: @autoclosure () -> String, _ fields: inout Fields) throws
        -> Timestamp?
    {
        guard parser.peek() == UInt8(ascii: "\"") else {
            _ = try optionalString(&parser, key(), &fields)
            return nil
        }
        let timestamp = try parser.withStringBytes { (bytes) throws(JSONError) in Timestamp(rfc3339Bytes: bytes) }
        guard let timestamp else {
            fields.fail(
                .invalidTimestamp,
                "$.\(key())",
                "expected RFC 3339 like 2026-11-22T10:15:00.000Z, from 1677-09-22 to 2262-04-11"
            )
            return nil
        }
        return timestamp
    }

    private func decodeContext(_ parser: inout JSONParser, _ fields: inout Fields) throws -> EventContext? {
        guard parser.peek() == UInt8(ascii: "{") else {
            let value = try parser.parseValue(depth: 0)
            if value != .null { fields.fail(.wrongType, "$.context", "expected an object, got \(value.typeName)") }
            return nil
        }
        try parser.expect(UInt8(ascii: "{"))
        var context = EventContext()
        parser.skipWhitespace()
        if parser.peek() == UInt8(ascii: "}") {
            try parser.expect(UInt8(ascii: "}"))
            return context
        }
        while true {
            parser.skipWhitespace()
            guard parser.peek() == UInt8(ascii: "\"") else {
                throw JSONError(parser.peek() == nil ? .unexpectedEnd : .unexpectedCharacter, at: parser.offset)
            }
            let (index, key) = try parser.withStringBytes { (bytes) throws(JSONError) -> (Int?, String?) in
                let index = Self.contextKeyIndex(bytes)
                return (index, index == nil ? String(decoding: bytes, as: UTF8.self) : nil)
            }
            parser.skipWhitespace()
            try parser.expect(UInt8(ascii: ":"))
            parser.skipWhitespace()
            if let index {
                let value = try optionalString(&parser, "context." + Self.contextKeys[index], &fields)
                switch index {
                case 0: context.appVersion = value
                case 1: context.appBuild = value
                case 2: context.platform = value
                case 3: context.osVersion = value
                default: context.locale = value
                }
            } else {
                context.additional[key ?? ""] = try parser.parsePropertyValue()
            }
            parser.skipWhitespace()
            guard let next = parser.peek() else { throw JSONError(.unexpectedEnd, at: parser.offset) }
            try parser.expect(next)
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else { throw JSONError(.unexpectedCharacter, at: parser.offset - 1) }
        }
        return context
    }

    private func decodeProperties(_ parser: inout JSONParser, _ fields: inout Fields) throws -> EventProperties {
        guard parser.peek() == UInt8(ascii: "{") else {
            let value = try parser.parseValue(depth: 0)
            if value != .null {
                fields.fail(.wrongType, "$.properties", "expected an object, got \(value.typeName)")
            }
            return EventProperties()
        }
        // Kept in their text when they can be (no escaped or repeated key): a third of the
        // decoding time of a typical line went to building per-property values.
        if let properties = parser.parsePropertyText() { return properties }
        let (properties, duplicate) = try parser.parsePropertyObject()
        if let duplicate { fields.fail(.duplicateField, "$.properties.\(duplicate)", "given twice") }
        return properties
    }
}
