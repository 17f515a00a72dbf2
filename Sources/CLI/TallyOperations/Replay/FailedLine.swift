import Foundation
package import TallyCore

/// One line of a dead-letter or rejects file (`Reject`'s JSON line), unwrapped: the event it keeps
/// and the members of its wrapper, byte for byte, so that a line that still fails is written back
/// as it was but for its reason.
///
/// - dead letters: `{"failed_at":…,"sink":…,"reason":…[,"path":…],"message":…,"attempts":…,
///   "event":{…envelope…}}` (no `message` in lines of earlier releases)
/// - the collector's rejects: `{"failed_at":…,"sink":"collector","reason":…,"path":…,"message":…,
///   "request_id":…,"index":…,"source":…,"event":{…}|null}` (the event as sent when it could not
///   be decoded)
/// - the rejects of `tally ingest`: `{"failed_at":…,"source":…,"line":…,"reason":…,"path":…,
///   "message":…,"raw":"…"[,"raw_base64":"…"]}` (the input line as text, and byte-exact when it was
///   not UTF-8; no `failed_at` in lines of earlier releases)
package struct FailedLine {
    /// Which kind of file the line comes from.
    package enum Kind: String, Sendable {
        case deadLetter = "dead_letter"
        case collectorReject = "collector_reject"
        case ingestReject = "ingest_reject"
    }

    /// Which kind of line.
    package var kind: Kind
    /// The event's bytes: the `event` member's JSON, or the ingest reject's raw line; nil when the
    /// line keeps none (`"event":null`).
    package var event: [UInt8]?
    /// When it failed (for the collector's rejects: when the event arrived).
    package var failedAt: Timestamp?
    /// The reason recorded.
    package var reason: String
    /// Each member's key and its value's JSON text, in order.
    private var members: [(key: String, value: [UInt8])]

    /// Unwraps `line`; nil when it is not a dead-letter or rejects line.
    package static func parse(_ line: UnsafeBufferPointer<UInt8>) -> FailedLine? {
        var parser = JSONParser(bytes: line)
        var members: [(key: String, value: [UInt8])] = []
        do throws(JSONError) {
            parser.skipWhitespace()
            try parser.expect(UInt8(ascii: "{"))
            parser.skipWhitespace()
            if parser.peek() != UInt8(ascii: "}") {
                while true {
                    parser.skipWhitespace()
                    let key = try parser.parseString()
                    parser.skipWhitespace()
                    try parser.expect(UInt8(ascii: ":"))
                    parser.skipWhitespace()
                    let start = parser.offset
                    try parser.skipValue(depth: 1)
                    members.append((key, Array(line[start..<parser.offset])))
                    parser.skipWhitespace()
                    guard let next = parser.peek() else { return nil }
                    try parser.expect(next)
                    if next == UInt8(ascii: "}") { break }
                    guard next == UInt8(ascii: ",") else { return nil }
                }
            } else {
                try parser.expect(UInt8(ascii: "}"))
            }
            parser.skipWhitespace()
            guard parser.peek() == nil else { return nil }
        } catch {
            return nil
        }
        return FailedLine(members: members)
    }

    private init?(members: [(key: String, value: [UInt8])]) {
        self.members = members
        func string(_ key: String) -> String? {
            guard let value = members.last(where: { $0.key == key })?.value,
                case .string(let text)? = try? JSONParser.parse(value)
            else { return nil }
            return text
        }
        reason = string("reason") ?? ""
        failedAt = string("failed_at").flatMap { Timestamp(rfc3339: $0) }
        if members.contains(where: { $0.key == "line" }), members.contains(where: { $0.key == "source" }),
            !members.contains(where: { $0.key == "event" })
        {
            kind = .ingestReject
            // Byte-exact when the line was not UTF-8 (`raw` then holds replacement characters); none
            // for a line too long to keep.
            if let base64 = string("raw_base64"), let data = Data(base64Encoded: base64) {
                event = Array(data)
            } else {
                event = string("raw").map { Array($0.utf8) }
            }
        } else if let value = members.last(where: { $0.key == "event" })?.value, string("sink") != nil {
            kind = string("sink") == "collector" ? .collectorReject : .deadLetter
            event = value == Array("null".utf8) ? nil : value
        } else {
            return nil
        }
    }

    /// The line with `reason`, `path` and `message` replaced (added when missing), every other
    /// member as it was.
    package func rewritten(reason: String, path: String, message: String) -> [UInt8] {
        let replaced = ["reason": reason, "path": path, "message": message]
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        var written = Set<String>()
        for (key, value) in members {
            if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            if let text = replaced[key] {
                JSONWriter.appendString(text, to: &bytes)
                written.insert(key)
            } else {
                bytes.append(contentsOf: value)
            }
        }
        for key in ["reason", "path", "message"] where !written.contains(key) {
            bytes.append(UInt8(ascii: ","))
            JSONWriter.appendString(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            JSONWriter.appendString(replaced[key]!, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}
