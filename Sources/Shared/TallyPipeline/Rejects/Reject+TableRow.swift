package import TallyCore

/// A reject as a row of `tally.failed_events` (PostgreSQL and ClickHouse: `failed_at`, `event_id`,
/// `reason`, `detail`, `event`), so that both stores keep the same values.
extension Reject {
    /// `event_id`: the event's, when it was decoded.
    package var eventID: EventID? { event?.eventID }

    /// `detail`: where it came from, when the table has no column for it, and the message:
    /// `request r-1 index 2 source ios at $.properties.position: expected integer`,
    /// `events.ndjson:12 at $.name: …`; a store's own refusal or a dead letter keeps the message
    /// (for a store, the server's whole report), after the path when there is one.
    package var detail: String {
        let path = reason.path.map { " at \($0)" } ?? ""
        switch origin {
        case .request(let id, let index, let source):
            return "request \(id) index \(index) source \(source)\(path): \(reason.message)"
        case .line(let file, let line):
            return "\(file):\(line)\(path): \(reason.message)"
        case .sink:
            return reason.path.map { "at \($0): " + reason.message } ?? reason.message
        }
    }

    /// `event`: the event's NDJSON line, the bytes as they came when they are one JSON value (else
    /// as a JSON string of their text), `null` when nothing could be kept: always one JSON value.
    package var eventJSON: [UInt8] {
        switch content {
        case .event(let event):
            var line = event.ndjsonLine
            line.removeLast()
            return line
        case .bytes(let raw) where Self.isOneJSONValue(raw):
            return raw
        case .bytes(let raw):
            var text: [UInt8] = []
            JSONWriter.appendString(String(decoding: raw, as: UTF8.self), to: &text)
            return text
        case .nothing:
            return Array("null".utf8)
        }
    }
}
