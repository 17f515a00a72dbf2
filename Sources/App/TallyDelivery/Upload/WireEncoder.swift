import Foundation
package import TallyCore

/// The request bodies of each ``WireFormat``, uncompressed.
package enum WireEncoder {
    /// The route under the endpoint.
    static func path(_ format: WireFormat) -> String {
        switch format {
        case .tally: "v1/events"
        case .segment: "v1/batch"
        }
    }

    static func contentType(_ format: WireFormat) -> String {
        switch format {
        case .tally: "application/x-ndjson"
        case .segment: "application/json"
        }
    }

    static func authorization(_ format: WireFormat, writeKey: String) -> String {
        switch format {
        case .tally: "Bearer " + writeKey
        case .segment: "Basic " + Data((writeKey + ":").utf8).base64EncodedString()
        }
    }

    /// `events` with `sent_at` stamped: NDJSON envelopes, or a Segment batch.
    package static func body(_ events: [EventEnvelope], format: WireFormat, sentAt: Timestamp) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(events.count * 360 + 64)
        switch format {
        case .tally:
            for var event in events {
                event.sentAt = sentAt
                event.appendNDJSON(to: &bytes)
            }
        case .segment:
            bytes.append(contentsOf: #"{"batch":["#.utf8)
            for (index, event) in events.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                appendSegmentTrack(event, to: &bytes)
            }
            bytes.append(contentsOf: #"],"sentAt":""#.utf8)
            sentAt.appendRFC3339(to: &bytes)
            bytes.append(contentsOf: "\"}".utf8)
        }
        return bytes
    }

    /// One Segment `track` message: `messageId` is the event id (a UUID, kept as is by tally's
    /// collector), `timestamp` the device time; tally's own fields without a Segment counterpart
    /// (`feature`, `session_id`, `sample_rate`, `string_properties`) travel in `context` (`sampleRate`,
    /// `stringProperties`).
    /// Identity records become `identify`, `group` and `alias` calls (their properties the traits).
    static func appendSegmentTrack(_ event: EventEnvelope, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"type":""#.utf8)
        bytes.append(contentsOf: event.kind.rawValue.utf8)
        bytes.append(contentsOf: #"","messageId":""#.utf8)
        event.eventID.appendCanonical(to: &bytes)
        switch event.kind {
        case .track:
            bytes.append(contentsOf: #"","event":"#.utf8)
            JSONWriter.appendString(event.name, to: &bytes)
            bytes.append(contentsOf: #","properties":"#.utf8)
        case .identify, .group, .alias:
            bytes.append(UInt8(ascii: "\""))
            appendMember("groupId", event.groupID, to: &bytes)
            appendMember("previousId", event.previousID, to: &bytes)
            bytes.append(contentsOf: #","traits":"#.utf8)
        }
        event.properties.appendJSON(to: &bytes)
        bytes.append(contentsOf: #","timestamp":""#.utf8)
        event.occurredAt.appendRFC3339(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        appendMember("userId", event.userID, to: &bytes)
        // Segment requires one of the two ids.
        appendMember("anonymousId", event.anonymousID ?? (event.userID == nil ? "tally-anonymous" : nil), to: &bytes)
        bytes.append(contentsOf: #","context":{"#.utf8)
        // The app SDK's context members carry Segment's names (`app`, `os`, `device`, `library`,
        // `timezone`, `network`): sent as they are, the fields only where no member says more.
        let additional = event.context?.additional ?? EventProperties()
        if let library = additional["library"] {
            bytes.append(contentsOf: #""library":"#.utf8)
            JSONWriter.appendValue(library, to: &bytes)
        } else {
            bytes.append(contentsOf: #""library":{"name":"tally","version":"1"}"#.utf8)
        }
        if let context = event.context {
            if !additional.contains("app") {
                appendObject("app", [("version", context.appVersion), ("build", context.appBuild)], to: &bytes)
            }
            if !additional.contains("os") {
                appendObject("os", [("name", context.platform), ("version", context.osVersion)], to: &bytes)
            }
            appendMember("locale", context.locale, to: &bytes)
            additional.forEachSorted { key, value in
                guard key != "library", key != "locale", key != "feature", key != "sessionId" else { return }
                bytes.append(UInt8(ascii: ","))
                JSONWriter.appendString(key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                JSONWriter.appendValue(value, to: &bytes)
            }
        }
        appendMember("feature", event.feature, to: &bytes)
        appendMember("sessionId", event.sessionID, to: &bytes)
        if event.stringProperties { bytes.append(contentsOf: #","stringProperties":true"#.utf8) }
        if let rate = event.sampleRate {
            bytes.append(contentsOf: #","sampleRate":"#.utf8)
            bytes.append(contentsOf: JSONWriter.numberText(rate).utf8)
        }
        bytes.append(contentsOf: "}}".utf8)
    }

    /// `,"key":"value"` when `value` is set.
    private static func appendMember(_ key: String, _ value: String?, to bytes: inout [UInt8]) {
        guard let value else { return }
        bytes.append(UInt8(ascii: ","))
        JSONWriter.appendString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        JSONWriter.appendString(value, to: &bytes)
    }

    /// `,"key":{…}` with the members that are set; nothing when none is.
    private static func appendObject(_ key: String, _ members: [(String, String?)], to bytes: inout [UInt8]) {
        let present = members.compactMap { member in member.1.map { (member.0, $0) } }
        guard !present.isEmpty else { return }
        bytes.append(UInt8(ascii: ","))
        JSONWriter.appendString(key, to: &bytes)
        bytes.append(contentsOf: ":{".utf8)
        for (index, (name, value)) in present.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            JSONWriter.appendString(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}
