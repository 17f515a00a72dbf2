package import TallyCore
package import TallyPipeline

/// Events and identity records as RowBinary rows of `tally.events` and `tally.identities`, in the
/// column order of ``ClickHouseSchema/eventColumns`` and ``ClickHouseSchema/identityColumns``.
///
/// Properties are kept twice: the JSON text byte for byte (what reports read back), and flattened
/// top-level `property_keys` / `property_values` arrays (a string as itself, any other value as
/// its JSON text) that SQL filters use without parsing JSON, as Snuba keeps tags.
package enum ClickHouseRowEncoder {
    /// `INSERT INTO tally.events (…) FORMAT RowBinary`.
    package static let eventInsert =
        "INSERT INTO tally.events (" + ClickHouseSchema.eventColumns.joined(separator: ", ") + ") FORMAT RowBinary"
    /// `INSERT INTO tally.identities (…) FORMAT RowBinary`.
    package static let identityInsert =
        "INSERT INTO tally.identities (" + ClickHouseSchema.identityColumns.joined(separator: ", ")
        + ") FORMAT RowBinary"
    /// `INSERT INTO tally.failed_events (…) FORMAT RowBinary`.
    package static let failedInsert =
        "INSERT INTO tally.failed_events (" + ClickHouseSchema.failedColumns.joined(separator: ", ")
        + ") FORMAT RowBinary"

    /// The actor events are sharded and counted by: the user id, else the anonymous id, else empty.
    package static func actor(_ event: EventEnvelope) -> String {
        event.userID ?? event.anonymousID ?? ""
    }

    /// Appends one `tally.events` row.
    package static func appendEvent(_ event: EventEnvelope, to writer: inout RowBinaryWriter) {
        writer.uuid(event.eventID)
        writer.date(event.occurredAt)
        writer.micros(event.occurredAt)
        writer.string(event.name)
        writer.string(event.feature ?? "")
        writer.string(actor(event))
        writer.nullableString(event.userID)
        writer.nullableString(event.anonymousID)
        writer.nullableString(event.sessionID)
        writer.string { event.properties.appendJSON(to: &$0) }
        var keys: [String] = []
        var values: [String] = []
        keys.reserveCapacity(event.properties.count)
        values.reserveCapacity(event.properties.count)
        event.properties.forEachSorted { key, value in
            keys.append(key)
            values.append(flattened(value))
        }
        writer.strings(keys)
        writer.strings(values)
        if let context = event.context, !context.isEmpty {
            writer.uint8(0)
            writer.string { context.appendJSON(to: &$0) }
        } else {
            writer.uint8(1)
        }
        writer.nullableString(event.schemaVersion)
        if let violations = event.violations {
            writer.uint8(0)
            writer.string { JSONWriter.appendStrings(violations, to: &$0) }
        } else {
            writer.uint8(1)
        }
        writer.nullableMicros(event.sentAt)
        writer.nullableMicros(event.receivedAt)
        writer.nullableString(event.sourceID)
        writer.nullableMicros(event.correctedAt)
        writer.nullableFloat64(event.sampleRate)
        writer.nullableMicros(event.deviceOccurredAt)
    }

    /// Appends one `tally.identities` row (an identify, group or alias record).
    package static func appendIdentity(_ event: EventEnvelope, to writer: inout RowBinaryWriter) {
        writer.uuid(event.eventID)
        writer.date(event.occurredAt)
        writer.micros(event.occurredAt)
        writer.string(event.kind.rawValue)
        writer.string(event.name)
        writer.string(actor(event))
        writer.nullableString(event.userID)
        writer.nullableString(event.anonymousID)
        writer.nullableString(event.groupID)
        writer.nullableString(event.previousID)
        writer.string { event.properties.appendJSON(to: &$0) }
        if let context = event.context, !context.isEmpty {
            writer.uint8(0)
            writer.string { context.appendJSON(to: &$0) }
        } else {
            writer.uint8(1)
        }
        writer.nullableMicros(event.sentAt)
        writer.nullableMicros(event.receivedAt)
        writer.nullableString(event.sourceID)
        writer.nullableMicros(event.correctedAt)
        writer.nullableMicros(event.deviceOccurredAt)
    }

    /// Appends one `tally.failed_events` row: the reject's event id, reason code, detail and event,
    /// as PostgreSQL keeps them (``TallyPipeline/Reject/detail``, ``TallyPipeline/Reject/eventJSON``).
    package static func appendFailed(_ reject: Reject, to writer: inout RowBinaryWriter) {
        writer.string(reject.eventID?.description ?? "")
        writer.string(reject.reason.code)
        writer.string(reject.detail)
        writer.string(bytes: reject.eventJSON)
    }

    /// A property value as filters compare it: a string as itself, anything else as JSON text.
    package static func flattened(_ value: PropertyValue) -> String {
        if case .string(let string) = value { return string }
        var bytes: [UInt8] = []
        JSONWriter.appendValue(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
