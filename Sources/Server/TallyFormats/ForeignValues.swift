import TallyCore

/// Helpers shared by the Segment and PostHog mappers: reading fields of a parsed message with a
/// reason for each refusal.
enum ForeignValues {
    /// A string field; a number is taken as its text (some SDKs send numeric user ids); null or
    /// absent is nil; anything else is a type problem.
    static func string(_ value: JSONValue?, path: String) throws(EnvelopeDecodingError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case .number(let number)?: return number.text
        case let other?:
            throw EnvelopeDecodingError(.wrongType, path: path, message: "expected a string, got \(other.typeName)")
        }
    }

    /// A timestamp: RFC 3339, or the `YYYY-MM-DD HH:MM:SS[.ffffff]` form (UTC unless an offset
    /// follows) that PostHog's exports and ClickHouse write.
    static func timestamp(_ value: JSONValue?, path: String) throws(EnvelopeDecodingError) -> Timestamp? {
        guard let text = try string(value, path: path) else { return nil }
        if let timestamp = Timestamp(rfc3339: text) { return timestamp }
        var utf8 = Array(text.utf8)
        if utf8.count >= 19, utf8[10] == UInt8(ascii: " ") {
            utf8[10] = UInt8(ascii: "T")
            let tail = utf8[19...]
            if !tail.contains(where: { $0 == UInt8(ascii: "Z") || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") })
            {
                utf8.append(UInt8(ascii: "Z"))
            }
            if let timestamp = Timestamp(rfc3339: String(decoding: utf8, as: UTF8.self)) { return timestamp }
        }
        throw EnvelopeDecodingError(
            .invalidTimestamp,
            path: path,
            message: "expected RFC 3339 like 2026-11-22T10:15:00.000Z, from 1677-09-22 to 2262-04-11"
        )
    }

    /// The event id of a foreign message: a UUID in any spelling is that UUID; any other non-empty
    /// string is kept as the source id and named by its UUIDv5.
    static func eventID(_ value: JSONValue?, path: String) throws(EnvelopeDecodingError) -> (
        id: EventID, sourceID: String?
    )? {
        guard let text = try string(value, path: path) else { return nil }
        if text.isEmpty { throw EnvelopeDecodingError(.invalidEventID, path: path, message: "must not be empty") }
        if let id = EventID(uuidText: text) { return (id, nil) }
        return (EventID(foreignID: text), text)
    }
}
