extension EventEnvelope {
    /// The envelope as one NDJSON line (with its trailing `\n`).
    ///
    /// Keys are snake_case in a fixed order, absent optionals are left out and property keys are
    /// sorted, so one event always encodes to the same bytes.
    public var ndjsonLine: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        appendNDJSON(to: &bytes)
        return bytes
    }

    /// Appends ``ndjsonLine`` to a buffer, for writers that batch many events into one write.
    public func appendNDJSON(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"event_id":""#.utf8)
        eventID.appendCanonical(to: &bytes)
        if kind != .track {
            bytes.append(contentsOf: #"","type":""#.utf8)
            bytes.append(contentsOf: kind.rawValue.utf8)
        }
        bytes.append(contentsOf: #"","name":"#.utf8)
        JSONWriter.appendString(name, to: &bytes)
        if let feature {
            bytes.append(contentsOf: #","feature":"#.utf8)
            JSONWriter.appendString(feature, to: &bytes)
        }
        bytes.append(contentsOf: #","properties":"#.utf8)
        properties.appendJSON(to: &bytes)
        if stringProperties { bytes.append(contentsOf: #","string_properties":true"#.utf8) }
        bytes.append(contentsOf: #","occurred_at":""#.utf8)
        occurredAt.appendRFC3339(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        appendTimestamp("sent_at", sentAt, to: &bytes)
        appendTimestamp("received_at", receivedAt, to: &bytes)
        appendString("user_id", userID, to: &bytes)
        appendString("anonymous_id", anonymousID, to: &bytes)
        appendString("session_id", sessionID, to: &bytes)
        if let context, !context.isEmpty {
            bytes.append(contentsOf: #","context":"#.utf8)
            context.appendJSON(to: &bytes)
        }
        appendString("schema_version", schemaVersion, to: &bytes)
        appendString("source_id", sourceID, to: &bytes)
        appendString("group_id", groupID, to: &bytes)
        appendString("previous_id", previousID, to: &bytes)
        if let sampleRate {
            appendKey("sample_rate", to: &bytes)
            bytes.append(contentsOf: JSONWriter.numberText(sampleRate).utf8)
        }
        appendTimestamp("device_occurred_at", deviceOccurredAt, to: &bytes)
        if let violations {
            bytes.append(contentsOf: #","violations":"#.utf8)
            JSONWriter.appendStrings(violations, to: &bytes)
        }
        bytes.append(contentsOf: "}\n".utf8)
    }

    private func appendTimestamp(_ key: StaticString, _ value: Timestamp?, to bytes: inout [UInt8]) {
        guard let value else { return }
        appendKey(key, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        value.appendRFC3339(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    private func appendString(_ key: StaticString, _ value: String?, to bytes: inout [UInt8]) {
        guard let value else { return }
        appendKey(key, to: &bytes)
        JSONWriter.appendString(value, to: &bytes)
    }

    private func appendKey(_ key: StaticString, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: ","))
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }
}
