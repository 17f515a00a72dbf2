import Foundation
import TallyCore

/// The one JSON line every file of rejects holds (the file store's `dead-letter/` files, the
/// rejects files of `tally ingest`), and that the log and ClickHouse keep:
///
/// ```
/// {"failed_at":…,"sink":…,"reason":…,"path":…,"message":…,"attempts":…,"event":{…}}        a dead letter
/// {"failed_at":…,"sink":"collector","reason":…,"path":…,"message":…,
///  "request_id":…,"index":…,"source":…,"event":{…}|null}                                  a collector's reject
/// {"failed_at":…,"source":…,"line":…,"reason":…,"path":…,"message":…,"raw":…[,"raw_base64":…]}
///                                                                                           an input line
/// ```
///
/// `path` is left out when no field is at fault. An input line is kept as read in `raw` (as text,
/// and byte-exact in `raw_base64` when it is not UTF-8); the other origins keep the event in
/// `event`, as decoded or as sent when that is one JSON value (`null` when nothing could be kept;
/// other bytes go to `raw` beside it). `tally replay` reads these lines back, and lines written
/// before every reject had `failed_at` and `message` (ingest's without the first, dead letters
/// without the second) are read the same way.
extension Reject {
    /// The JSON line, with its trailing `\n`.
    package var jsonLine: [UInt8] {
        var bytes: [UInt8] = []
        appendJSONLine(to: &bytes)
        return bytes
    }

    /// Appends ``jsonLine`` to `bytes`.
    package func appendJSONLine(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"failed_at":""#.utf8)
        failedAt.appendRFC3339(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        switch origin {
        case .sink(let name, _): Self.appendMember("sink", name, to: &bytes)
        case .request: Self.appendMember("sink", "collector", to: &bytes)
        case .line(let file, let line):
            Self.appendMember("source", file, to: &bytes)
            bytes.append(contentsOf: #","line":"#.utf8)
            JSONWriter.appendInteger(Int64(line), to: &bytes)
        }
        Self.appendMember("reason", reason.code, to: &bytes)
        if let path = reason.path { Self.appendMember("path", path, to: &bytes) }
        Self.appendMember("message", reason.message, to: &bytes)
        switch origin {
        case .sink(_, let attempts):
            bytes.append(contentsOf: #","attempts":"#.utf8)
            JSONWriter.appendInteger(Int64(attempts), to: &bytes)
        case .request(let id, let index, let source):
            Self.appendMember("request_id", id, to: &bytes)
            bytes.append(contentsOf: #","index":"#.utf8)
            JSONWriter.appendInteger(Int64(index), to: &bytes)
            Self.appendMember("source", source, to: &bytes)
        case .line:
            break
        }
        appendContent(to: &bytes)
        bytes.append(contentsOf: "}\n".utf8)
    }

    private func appendContent(to bytes: inout [UInt8]) {
        if case .line = origin {
            switch content {
            case .event(let event): Self.appendRaw(event.ndjsonLine.dropLast(), to: &bytes)
            case .bytes(let raw): Self.appendRaw(raw, to: &bytes)
            case .nothing: break
            }
            return
        }
        bytes.append(contentsOf: #","event":"#.utf8)
        switch content {
        case .event(let event):
            event.appendNDJSON(to: &bytes)
            bytes.removeLast()  // the envelope's newline
        case .bytes(let raw) where Self.isOneJSONValue(raw):
            bytes.append(contentsOf: raw)
        case .bytes(let raw):
            bytes.append(contentsOf: "null".utf8)
            Self.appendRaw(raw, to: &bytes)
        case .nothing:
            bytes.append(contentsOf: "null".utf8)
        }
    }

    /// `"raw":"…"`, and `"raw_base64":"…"` when the bytes are not UTF-8 (`raw` then holds
    /// replacement characters).
    private static func appendRaw(_ raw: some Collection<UInt8>, to bytes: inout [UInt8]) {
        let text = String(decoding: raw, as: UTF8.self)
        appendMember("raw", text, to: &bytes)
        if !text.utf8.elementsEqual(raw) {
            bytes.append(contentsOf: #","raw_base64":""#.utf8)
            bytes.append(contentsOf: Data(raw).base64EncodedString().utf8)
            bytes.append(UInt8(ascii: "\""))
        }
    }

    private static func appendMember(_ key: String, _ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: ","))
        JSONWriter.appendString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        JSONWriter.appendString(value, to: &bytes)
    }

    /// Whether `bytes` are one JSON value (and so can stand in the line as they are).
    package static func isOneJSONValue(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(bytes: buffer)
            do throws(JSONError) {
                parser.skipWhitespace()
                guard parser.peek() != nil else { return false }
                try parser.skipValue(depth: 0)
                parser.skipWhitespace()
                return parser.peek() == nil
            } catch {
                return false
            }
        }
    }
}

extension Reject {
    /// Reads a line of a rejects or dead-letter file back; nil when it is not one. The `event` of
    /// a line is the decoded event when it is a tally envelope, else its bytes; a line written
    /// without `failed_at` (an ingest reject of an earlier release) failed at 1970-01-01.
    package init?(jsonLine line: some Collection<UInt8>) {
        let bytes = Array(line)
        guard let members = bytes.withUnsafeBufferPointer({ Self.members(of: $0) }) else { return nil }
        func value(_ key: String) -> [UInt8]? { members.last { $0.key == key }?.value }
        func string(_ key: String) -> String? {
            guard let value = value(key), case .string(let text)? = try? JSONParser.parse(value) else { return nil }
            return text
        }
        func integer(_ key: String) -> Int? {
            guard let value = value(key), case .number(let number)? = try? JSONParser.parse(value) else { return nil }
            return Int(number.text)
        }
        guard let code = string("reason") else { return nil }
        if let id = string("request_id"), let index = integer("index") {
            origin = .request(id: id, index: index, source: string("source") ?? "")
        } else if let file = string("source"), let number = integer("line") {
            origin = .line(file: file, line: number)
        } else if let sink = string("sink") {
            origin = .sink(name: sink, attempts: integer("attempts") ?? 0)
        } else {
            return nil
        }
        reason = Reason(code: code, path: string("path"), message: string("message") ?? "")
        failedAt = string("failed_at").flatMap { Timestamp(rfc3339: $0) } ?? Timestamp(nanosecondsSinceEpoch: 0)
        if let base64 = string("raw_base64"), let data = Data(base64Encoded: base64) {
            content = .bytes(Array(data))
        } else if let event = value("event"), event != Array("null".utf8) {
            let decoded = event.withUnsafeBufferPointer { try? EnvelopeDecoder().decode($0, fallbackID: nil) }
            content = decoded.map { .event($0) } ?? .bytes(event)
        } else if let raw = string("raw") {
            content = .bytes(Array(raw.utf8))
        } else {
            content = .nothing
        }
    }

    /// Each member's key and its value's JSON text, in order; nil when `line` is not one JSON object.
    private static func members(of line: UnsafeBufferPointer<UInt8>) -> [(key: String, value: [UInt8])]? {
        var parser = JSONParser(bytes: line)
        var members: [(key: String, value: [UInt8])] = []
        do throws(JSONError) {
            parser.skipWhitespace()
            try parser.expect(UInt8(ascii: "{"))
            parser.skipWhitespace()
            if parser.peek() == UInt8(ascii: "}") {
                try parser.expect(UInt8(ascii: "}"))
            } else {
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
            }
            parser.skipWhitespace()
            return parser.peek() == nil ? members : nil
        } catch {
            return nil
        }
    }
}
