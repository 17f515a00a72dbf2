/// Decodes one NDJSON line straight into an ``EventEnvelope``, without building a JSON tree.
///
/// The same RFC 8259 rules as ``JSONParser`` (whose scanning primitives it uses): every `n_`
/// file of JSONTestSuite is refused, UTF-8 is validated, nesting is bounded. Unknown top-level
/// keys are parsed (so the line must still be valid JSON) and ignored.
public struct EnvelopeDecoder: Sendable {
    /// The deepest nesting accepted inside unknown keys.
    public var maxDepth: Int

    /// A decoder.
    public init(maxDepth: Int = JSONParser.defaultMaxDepth) {
        self.maxDepth = maxDepth
    }

    /// Decodes `line`; `fallbackID` is used when it has no `event_id`.
    public func decode(_ line: UnsafeBufferPointer<UInt8>, fallbackID: @autoclosure () -> EventID)
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
                    let key = try parser.parseString()
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
        guard let name = fields.name else {
            throw EnvelopeDecodingError(.missingField, path: "$.name", message: "required")
        }
        guard let occurredAt = fields.occurredAt else {
            throw EnvelopeDecodingError(.missingField, path: "$.occurred_at", message: "required")
        }
        return EventEnvelope(
            eventID: fields.eventID ?? fallbackID(),
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
            violations: fields.violations
        )
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
        /// The first semantic problem; the line is still parsed to the end, so that malformed JSON wins.
        var problem: EnvelopeDecodingError?

        mutating func fail(_ code: EnvelopeDecodingError.Code, _ path: String, _ message: String) {
            if problem == nil { problem = EnvelopeDecodingError(code, path: path, message: message) }
        }
    }

    private static let keys: [String] = [
        "event_id", "name", "feature", "properties", "occurred_at", "sent_at", "received_at", "user_id",
        "anonymous_id", "session_id", "context", "schema_version", "violations",
    ]

    private func decodeField(_ key: String, parser: inout JSONParser, into fields: inout Fields) throws -> Void {
        guard let index = Self.keys.firstIndex(of: key) else {
            _ = try parser.parseValue(depth: 0)
            return
        }
        let bit = UInt32(1) << UInt32(index)
        if fields.seen & bit != 0 { fields.fail(.duplicateField, "$.\(key)", "given twice") }
        fields.seen |= bit
        switch index {
        case 0:
            if let text = try optionalString(&parser, key, &fields) {
                if let id = EventID(text) {
                    fields.eventID = id
                } else {
                    fields.fail(.invalidEventID, "$.event_id", "not a UUID")
                }
            }
        case 1: fields.name = try optionalString(&parser, key, &fields)
        case 2: fields.feature = try optionalString(&parser, key, &fields)
        case 3: fields.properties = try decodeProperties(&parser, &fields)
        case 4: fields.occurredAt = try timestamp(&parser, key, &fields)
        case 5: fields.sentAt = try timestamp(&parser, key, &fields)
        case 6: fields.receivedAt = try timestamp(&parser, key, &fields)
        case 7: fields.userID = try optionalString(&parser, key, &fields)
        case 8: fields.anonymousID = try optionalString(&parser, key, &fields)
        case 9: fields.sessionID = try optionalString(&parser, key, &fields)
        case 10:
            do {
                fields.context = try EventEnvelope.context(try parser.parseValue(depth: 0))
            } catch let error as EnvelopeDecodingError {
                fields.fail(error.code, error.path, error.message)
            }
        case 11: fields.schemaVersion = try optionalString(&parser, key, &fields)
        default:
            let value = try parser.parseValue(depth: 0)
            switch value {
            case .null: break
            case .array(let elements) where elements.allSatisfy({ $0.stringValue != nil }):
                fields.violations = elements.compactMap(\.stringValue)
            default: fields.fail(.wrongType, "$.violations", "expected an array of strings")
            }
        }
    }

    /// A string, or nil for `null`; anything else is a type problem (the value is still parsed).
    private func optionalString(_ parser: inout JSONParser, _ key: String, _ fields: inout Fields) throws -> String? {
        switch parser.peek() {
        case UInt8(ascii: "\""): return try parser.parseString()
        case UInt8(ascii: "n"):
            if case .null = try parser.parseValue(depth: 0) { return nil }
        default:
            let value = try parser.parseValue(depth: 0)
            fields.fail(.wrongType, "$.\(key)", "expected a string, got \(value.typeName)")
        }
        return nil
    }

    private func timestamp(_ parser: inout JSONParser, _ key: String, _ fields: inout Fields) throws -> Timestamp? {
        guard let text = try optionalString(&parser, key, &fields) else { return nil }
        guard let timestamp = Timestamp(rfc3339: text) else {
            fields.fail(.invalidTimestamp, "$.\(key)", "expected RFC 3339 like 2026-11-22T10:15:00.000Z")
            return nil
        }
        return timestamp
    }

    private func decodeProperties(_ parser: inout JSONParser, _ fields: inout Fields) throws -> EventProperties {
        guard parser.peek() == UInt8(ascii: "{") else {
            let value = try parser.parseValue(depth: 0)
            if value != .null {
                fields.fail(.wrongType, "$.properties", "expected an object, got \(value.typeName)")
            }
            return EventProperties()
        }
        try parser.expect(UInt8(ascii: "{"))
        var pairs: [EventProperties.Pair] = []
        parser.skipWhitespace()
        if parser.peek() == UInt8(ascii: "}") {
            try parser.expect(UInt8(ascii: "}"))
            return EventProperties()
        }
        while true {
            parser.skipWhitespace()
            guard parser.peek() == UInt8(ascii: "\"") else {
                throw JSONError(parser.peek() == nil ? .unexpectedEnd : .unexpectedCharacter, at: parser.offset)
            }
            let key = try parser.parseString()
            parser.skipWhitespace()
            try parser.expect(UInt8(ascii: ":"))
            parser.skipWhitespace()
            let path = "$.properties.\(key)"
            switch parser.peek() ?? 0 {
            case UInt8(ascii: "\""): pairs.append((key, .string(try parser.parseString())))
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let text = try parser.parseNumberText()
                if let integer = Int64(text) {
                    pairs.append((key, .integer(integer)))
                } else if let double = Double(text), double.isFinite {
                    pairs.append((key, .number(double)))
                } else {
                    fields.fail(.wrongType, path, "number out of range")
                }
            default:
                switch try parser.parseValue(depth: 1) {
                case .bool(let bool): pairs.append((key, .bool(bool)))
                case .null: pairs.append((key, .null))
                case let other: fields.fail(.wrongType, path, "expected a scalar, got \(other.typeName)")
                }
            }
            parser.skipWhitespace()
            guard let next = parser.peek() else { throw JSONError(.unexpectedEnd, at: parser.offset) }
            try parser.expect(next)
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else { throw JSONError(.unexpectedCharacter, at: parser.offset - 1) }
        }
        let properties = EventProperties(pairs: pairs)
        let sorted = properties.sortedPairs
        for index in sorted.indices.dropFirst() where sorted[index].key == sorted[index - 1].key {
            fields.fail(.duplicateField, "$.properties.\(sorted[index].key)", "given twice")
        }
        return properties
    }
}
