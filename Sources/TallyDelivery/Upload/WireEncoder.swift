import Foundation
import TallyCore

/// The request bodies of each ``WireFormat``, uncompressed.
enum WireEncoder {
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
    static func body(_ events: [EventEnvelope], format: WireFormat, sentAt: Timestamp) -> [UInt8] {
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
    /// (`feature`, `session_id`) travel in `context`.
    static func appendSegmentTrack(_ event: EventEnvelope, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"type":"track","messageId":""#.utf8)
        event.eventID.appendCanonical(to: &bytes)
        bytes.append(contentsOf: #"","event":"#.utf8)
        JSONWriter.appendString(event.name, to: &bytes)
        bytes.append(contentsOf: #","properties":"#.utf8)
        event.properties.appendJSON(to: &bytes)
        bytes.append(contentsOf: #","timestamp":""#.utf8)
        event.occurredAt.appendRFC3339(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        if let userID = event.userID {
            bytes.append(contentsOf: #","userId":"#.utf8)
            JSONWriter.appendString(userID, to: &bytes)
        }
        // Segment requires one of the two ids.
        if let anonymousID = event.anonymousID ?? (event.userID == nil ? "tally-anonymous" : nil) {
            bytes.append(contentsOf: #","anonymousId":"#.utf8)
            JSONWriter.appendString(anonymousID, to: &bytes)
        }
        bytes.append(contentsOf: #","context":{"library":{"name":"tally","version":"1"}"#.utf8)
        if let context = event.context {
            if let version = context.appVersion ?? context.appBuild {
                bytes.append(contentsOf: #","app":{"version":"#.utf8)
                JSONWriter.appendString(version, to: &bytes)
                if let build = context.appBuild {
                    bytes.append(contentsOf: #","build":"#.utf8)
                    JSONWriter.appendString(build, to: &bytes)
                }
                bytes.append(UInt8(ascii: "}"))
            }
            if let platform = context.platform {
                bytes.append(contentsOf: #","os":{"name":"#.utf8)
                JSONWriter.appendString(platform, to: &bytes)
                if let version = context.osVersion {
                    bytes.append(contentsOf: #","version":"#.utf8)
                    JSONWriter.appendString(version, to: &bytes)
                }
                bytes.append(UInt8(ascii: "}"))
            }
            if let locale = context.locale {
                bytes.append(contentsOf: #","locale":"#.utf8)
                JSONWriter.appendString(locale, to: &bytes)
            }
        }
        if let feature = event.feature {
            bytes.append(contentsOf: #","feature":"#.utf8)
            JSONWriter.appendString(feature, to: &bytes)
        }
        if let sessionID = event.sessionID {
            bytes.append(contentsOf: #","sessionId":"#.utf8)
            JSONWriter.appendString(sessionID, to: &bytes)
        }
        bytes.append(contentsOf: "}}".utf8)
    }
}
