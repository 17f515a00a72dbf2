package import TallyCore

/// Encodes envelopes in PostgreSQL's binary COPY format, in the column order of ``columns``:
/// no escaping, no text parsing of ids and timestamps on either side.
///
/// `uuid` is 16 bytes, `timestamptz` microseconds since 2000-01-01 as a big-endian Int64, `text`
/// its UTF-8, `jsonb` a version byte (1) and the JSON text; a NULL is a length of -1.
package enum CopyBinaryEncoder {
    /// The columns of `tally.events`, in the order rows are encoded.
    package static let columns =
        "event_id, occurred_at, name, feature, properties, sent_at, received_at, user_id, anonymous_id, session_id, context, schema_version, violations, source_id, corrected_at, sample_rate, device_occurred_at"

    /// The columns of `tally.identities`, in the order ``appendIdentity(_:to:)`` encodes them.
    package static let identityColumns =
        "event_id, occurred_at, type, name, user_id, anonymous_id, group_id, previous_id, traits, context, sent_at, received_at, source_id, corrected_at, device_occurred_at"

    /// The 19-byte header: signature, flags, header-extension length.
    package static let header: [UInt8] =
        Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0] + [0, 0, 0, 0]
    /// The trailer: a field count of -1.
    package static let trailer: [UInt8] = [0xFF, 0xFF]

    /// Microseconds between 1970-01-01 and 2000-01-01.
    private static let postgresEpochOffset: Int64 = 946_684_800_000_000

    /// Where a tuple's text fields were written in the buffer (nil: NULL), for work that reads them
    /// again as bytes (rollup upkeep) instead of going back to the strings.
    package struct TextFields: Sendable {
        package var name: Range<Int>
        package var feature: Range<Int>
        package var userID: Range<Int>?
        package var anonymousID: Range<Int>?
    }

    /// Appends one tuple; returns where its text fields are.
    @discardableResult
    package static func append(_ event: EventEnvelope, to bytes: inout [UInt8]) -> TextFields {
        appendInt16(17, to: &bytes)
        appendInt32(16, to: &bytes)
        appendInt64(Int64(bitPattern: event.eventID.high), to: &bytes)
        appendInt64(Int64(bitPattern: event.eventID.low), to: &bytes)
        timestamp(event.occurredAt, &bytes)
        let name = nonNullText(event.name, &bytes)
        let feature = nonNullText(event.feature ?? "", &bytes)
        jsonb(&bytes) { event.properties.appendJSON(to: &$0) }
        timestamp(event.sentAt, &bytes)
        timestamp(event.receivedAt, &bytes)
        let userID = text(event.userID, &bytes)
        let anonymousID = text(event.anonymousID, &bytes)
        text(event.sessionID, &bytes)
        if let context = event.context, !context.isEmpty {
            jsonb(&bytes) { context.appendJSON(to: &$0) }
        } else {
            appendInt32(-1, to: &bytes)
        }
        text(event.schemaVersion, &bytes)
        if let violations = event.violations {
            jsonb(&bytes) { JSONWriter.appendStrings(violations, to: &$0) }
        } else {
            appendInt32(-1, to: &bytes)
        }
        text(event.sourceID, &bytes)
        timestamp(event.correctedAt, &bytes)
        if let rate = event.sampleRate {
            appendInt32(8, to: &bytes)
            appendInt64(Int64(bitPattern: rate.bitPattern), to: &bytes)
        } else {
            appendInt32(-1, to: &bytes)
        }
        timestamp(event.deviceOccurredAt, &bytes)
        return TextFields(name: name, feature: feature, userID: userID, anonymousID: anonymousID)
    }

    /// Appends one `tally.identities` tuple (an `identify`, `group` or `alias` record).
    package static func appendIdentity(_ event: EventEnvelope, to bytes: inout [UInt8]) {
        appendInt16(15, to: &bytes)
        appendInt32(16, to: &bytes)
        appendInt64(Int64(bitPattern: event.eventID.high), to: &bytes)
        appendInt64(Int64(bitPattern: event.eventID.low), to: &bytes)
        timestamp(event.occurredAt, &bytes)
        nonNullText(event.kind.rawValue, &bytes)
        nonNullText(event.name, &bytes)
        text(event.userID, &bytes)
        text(event.anonymousID, &bytes)
        text(event.groupID, &bytes)
        text(event.previousID, &bytes)
        jsonb(&bytes) { event.properties.appendJSON(to: &$0) }
        if let context = event.context, !context.isEmpty {
            jsonb(&bytes) { context.appendJSON(to: &$0) }
        } else {
            appendInt32(-1, to: &bytes)
        }
        timestamp(event.sentAt, &bytes)
        timestamp(event.receivedAt, &bytes)
        text(event.sourceID, &bytes)
        timestamp(event.correctedAt, &bytes)
        timestamp(event.deviceOccurredAt, &bytes)
    }

    private static func timestamp(_ value: Timestamp?, _ bytes: inout [UInt8]) {
        guard let value else { return appendInt32(-1, to: &bytes) }
        let nanoseconds = value.nanosecondsSinceEpoch
        let microseconds = nanoseconds >= 0 ? nanoseconds / 1_000 : (nanoseconds - 999) / 1_000
        appendInt32(8, to: &bytes)
        appendInt64(microseconds - postgresEpochOffset, to: &bytes)
    }

    @discardableResult
    private static func text(_ value: String?, _ bytes: inout [UInt8]) -> Range<Int>? {
        guard let value else {
            appendInt32(-1, to: &bytes)
            return nil
        }
        return nonNullText(value, &bytes)
    }

    @discardableResult
    private static func nonNullText(_ value: String, _ bytes: inout [UInt8]) -> Range<Int> {
        var value = value
        return value.withUTF8 { utf8 in
            appendInt32(Int32(utf8.count), to: &bytes)
            let start = bytes.count
            bytes.append(contentsOf: utf8)
            return start..<bytes.count
        }
    }

    /// A jsonb field: the length is patched in once the JSON is written.
    private static func jsonb(_ bytes: inout [UInt8], _ body: (inout [UInt8]) -> Void) {
        let lengthOffset = bytes.count
        appendInt32(0, to: &bytes)
        bytes.append(1)  // jsonb binary format version
        body(&bytes)
        let length = Int32(bytes.count - lengthOffset - 4)
        withUnsafeBytes(of: length.bigEndian) { raw in
            for index in 0..<4 { bytes[lengthOffset + index] = raw[index] }
        }
    }

    // Byte by byte: appending through `withUnsafeBytes(of:)` went through a non-inlined generic
    // `append(contentsOf:)`, ~8 ns per integer against ~5 ns (swiftc -O, 20 integers per row).
    @inline(__always)
    private static func appendInt16(_ value: Int16, to bytes: inout [UInt8]) {
        let value = UInt16(bitPattern: value)
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    @inline(__always)
    private static func appendInt32(_ value: Int32, to bytes: inout [UInt8]) {
        let value = UInt32(bitPattern: value)
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    @inline(__always)
    private static func appendInt64(_ value: Int64, to bytes: inout [UInt8]) {
        appendInt32(Int32(truncatingIfNeeded: value >> 32), to: &bytes)
        appendInt32(Int32(truncatingIfNeeded: value), to: &bytes)
    }
}
