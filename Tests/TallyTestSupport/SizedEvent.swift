import TallyCore

/// tally NDJSON lines whose envelope (as the pipeline writes it, `received_at` stamped, without
/// the newline) is exactly a given number of bytes: the event size limit tested at its boundary.
public enum SizedEvent {
    /// A line with `event_id` `0190c5a2-0000-7000-8000-` + `id` (12 digits), feature `episode`
    /// and three string properties padding it to `envelopeBytes` (each under the 16 KiB string
    /// limit, so the envelope's size is the only limit it can break).
    public static func line(envelopeBytes: Int, id: Int) throws -> String {
        let shortest = try envelopeSize(of: text(padding: 0, id: id))
        precondition(envelopeBytes >= shortest, "at least \(shortest) bytes")
        let line = text(padding: envelopeBytes - shortest, id: id)
        let size = try envelopeSize(of: line)
        precondition(size == envelopeBytes, "\(size) bytes, not \(envelopeBytes)")
        return line
    }

    /// The envelope's size: the line decoded, `received_at` stamped (a fixed width), re-encoded.
    public static func envelopeSize(of line: String) throws -> Int {
        var envelope = try EventEnvelope(ndjsonLine: Array(line.utf8))
        envelope.receivedAt = Timestamp.now()
        return envelope.ndjsonLine.count - 1
    }

    private static func text(padding: Int, id: Int) -> String {
        let third = padding / 3
        let values = [third, third, padding - 2 * third].map { String(repeating: "a", count: $0) }
        let identifier =
            String(id).count >= 12 ? String(id) : String(repeating: "0", count: 12 - String(id).count) + String(id)
        return
            #"{"event_id":"0190c5a2-0000-7000-8000-\#(identifier)","name":"episode_list_viewed","feature":"episode","#
            + #""occurred_at":"2026-11-22T10:00:00.000Z","properties":{"a":"\#(values[0])","b":"\#(values[1])","#
            + #""c":"\#(values[2])"}}"#
    }
}
