import TallySchema

/// Guesses why an input is not NDJSON when most of its lines are not JSON at all: a JSON array,
/// pretty-printed JSON, a compressed or binary file. Left alone, such an input looks like a run
/// with many rejects (or, for an array, like one accepted event: its last element).
struct InputDiagnosis {
    /// The first bytes of the input's non-blank lines, each line ending with a newline.
    private var head: [UInt8] = []
    private var acceptedAtStart: Int
    private var malformedAtStart: Int

    /// How many bytes of the input are kept to look at.
    private static let sniffLength = 256

    /// Starts looking at an input, given the run's counters when it begins.
    init(report: IngestReport) {
        acceptedAtStart = report.accepted
        malformedAtStart = report.rejected[.malformedJSON, default: 0]
    }

    /// Records the start of the input, one non-blank line at a time.
    mutating func observe(_ line: UnsafeBufferPointer<UInt8>) {
        guard head.count < Self.sniffLength else { return }
        head += line.prefix(Self.sniffLength - head.count)
        head.append(UInt8(ascii: "\n"))
    }

    /// A warning naming the likely cause, or nil when the input looks like NDJSON (or nothing is
    /// wrong with its JSON): called when the input is read, with the run's counters then.
    func warning(source: String, report: IngestReport) -> String? {
        let accepted = report.accepted - acceptedAtStart
        let malformed = report.rejected[.malformedJSON, default: 0] - malformedAtStart
        guard malformed > 0, malformed >= accepted, !head.isEmpty else { return nil }
        let first = head.prefix { $0 != UInt8(ascii: "\n") }.drop {
            $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF
        }
        let cause: String
        if head.starts(with: [0x1F, 0x8B]) {
            cause = "it looks gzip-compressed: decompress it first (gunzip -c \(source) | tally ingest)"
        } else if head.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0D && $0 != 0x0A }) {
            // JSON text never holds a raw control character; random or binary data almost always does.
            cause = "it looks like binary data, not NDJSON text"
        } else if first.first == UInt8(ascii: "[") {
            cause =
                "it looks like a JSON array, not NDJSON (one JSON object per line): convert it with "
                + "jq -c '.[]' \(source) > events.ndjson"
        } else if first.elementsEqual([UInt8(ascii: "{")]) {
            cause =
                "it looks like pretty-printed JSON (one object over several lines); NDJSON needs one object per "
                + "line: jq -c . \(source) > events.ndjson"
        } else if accepted == 0 {
            cause = "none of its lines is a JSON object: is it NDJSON (one JSON object per line)?"
        } else {
            return nil
        }
        return
            "\(source) is probably not NDJSON: \(cause) (\(malformed == 1 ? "1 line" : "\(malformed) lines") not JSON)"
    }
}
