public import TallyCore

/// Encodes envelopes as rows of PostgreSQL's COPY text format, in the column order of
/// ``CopyRowEncoder/columns``: tab-separated, `\N` for NULL, backslash escapes for `\`, tab,
/// newline and carriage return. JSON columns hold JSON text.
public enum CopyRowEncoder {
    /// The columns, in order.
    public static let columns =
        "event_id, occurred_at, name, feature, properties, sent_at, received_at, user_id, anonymous_id, session_id, context, schema_version, violations"

    /// Appends one row with its newline.
    public static func append(_ event: EventEnvelope, to bytes: inout [UInt8]) {
        event.eventID.appendCanonical(to: &bytes)
        tab(&bytes)
        event.occurredAt.appendRFC3339(to: &bytes)
        tab(&bytes)
        text(event.name, &bytes)
        tab(&bytes)
        text(event.feature ?? "", &bytes)
        tab(&bytes)
        // JSON is written straight into the row: JSONWriter escapes every control character, so the
        // only byte COPY cares about is the backslash, doubled afterwards if there is one.
        var start = bytes.count
        bytes.append(UInt8(ascii: "{"))
        var first = true
        event.properties.forEachSorted { key, value in
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            JSONWriter.appendString(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            JSONWriter.appendValue(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        doubleBackslashes(from: start, in: &bytes)
        tab(&bytes)
        timestamp(event.sentAt, &bytes)
        tab(&bytes)
        timestamp(event.receivedAt, &bytes)
        tab(&bytes)
        optional(event.userID, &bytes)
        tab(&bytes)
        optional(event.anonymousID, &bytes)
        tab(&bytes)
        optional(event.sessionID, &bytes)
        tab(&bytes)
        if let context = event.context, !context.isEmpty {
            start = bytes.count
            bytes.append(UInt8(ascii: "{"))
            var firstField = true
            contextField("app_version", context.appVersion, &firstField, &bytes)
            contextField("app_build", context.appBuild, &firstField, &bytes)
            contextField("platform", context.platform, &firstField, &bytes)
            contextField("os_version", context.osVersion, &firstField, &bytes)
            contextField("locale", context.locale, &firstField, &bytes)
            bytes.append(UInt8(ascii: "}"))
            doubleBackslashes(from: start, in: &bytes)
        } else {
            null(&bytes)
        }
        tab(&bytes)
        optional(event.schemaVersion, &bytes)
        tab(&bytes)
        if let violations = event.violations {
            var json: [UInt8] = [UInt8(ascii: "[")]
            for (index, violation) in violations.enumerated() {
                if index > 0 { json.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(violation, to: &json)
            }
            json.append(UInt8(ascii: "]"))
            escaped(json, &bytes)
        } else {
            null(&bytes)
        }
        bytes.append(UInt8(ascii: "\n"))
    }

    private static func contextField(_ key: StaticString, _ value: String?, _ first: inout Bool, _ bytes: inout [UInt8])
    {
        guard let value else { return }
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        JSONWriter.appendString(value, to: &bytes)
    }

    /// COPY text format for JSON already in `bytes` from `start`: backslashes doubled (rare).
    private static func doubleBackslashes(from start: Int, in bytes: inout [UInt8]) {
        guard bytes[start...].contains(0x5C) else { return }
        let json = Array(bytes[start...])
        bytes.removeSubrange(start...)
        for byte in json {
            if byte == 0x5C { bytes.append(0x5C) }
            bytes.append(byte)
        }
    }

    @inline(__always) private static func tab(_ bytes: inout [UInt8]) { bytes.append(0x09) }
    @inline(__always) private static func null(_ bytes: inout [UInt8]) { bytes.append(contentsOf: [0x5C, 0x4E]) }

    private static func timestamp(_ value: Timestamp?, _ bytes: inout [UInt8]) {
        if let value { value.appendRFC3339(to: &bytes) } else { null(&bytes) }
    }

    private static func optional(_ value: String?, _ bytes: inout [UInt8]) {
        if let value { text(value, &bytes) } else { null(&bytes) }
    }

    /// Appends `value` escaped for the COPY text format.
    public static func appendText(_ value: String, to bytes: inout [UInt8]) {
        text(value, &bytes)
    }

    private static func text(_ value: String, _ bytes: inout [UInt8]) {
        var value = value
        value.withUTF8 { escaped($0, &bytes) }
    }

    private static func escaped(_ value: [UInt8], _ bytes: inout [UInt8]) {
        value.withUnsafeBufferPointer { escaped($0, &bytes) }
    }

    /// Copies runs of plain bytes at once; escapes `\`, tab, newline and carriage return.
    private static func escaped(_ value: UnsafeBufferPointer<UInt8>, _ bytes: inout [UInt8]) {
        var runStart = 0
        for index in 0..<value.count {
            let byte = value[index]
            guard byte == 0x5C || byte == 0x09 || byte == 0x0A || byte == 0x0D else { continue }
            if runStart < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: value[runStart..<index])) }
            bytes.append(0x5C)
            switch byte {
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            default: bytes.append(0x5C)
            }
            runStart = index + 1
        }
        if runStart < value.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: value[runStart...])) }
    }
}
