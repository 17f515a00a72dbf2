public import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Writes batches to standard output: NDJSON, or a compact one-line human format when stdout is
/// a terminal.
public struct StdoutSink: EventSink {
    /// How events are written.
    public enum Format: String, Sendable, CaseIterable {
        /// One envelope per line, exactly as the file store holds it.
        case ndjson
        /// `12:04:05.123 episode  episode_list_episode_selected  episode_id=e42 position=3`.
        case human
    }

    public let name = "stdout"
    /// The format in use.
    public let format: Format

    /// A sink in `format`; by default, `human` when stdout is a terminal and NDJSON otherwise.
    public init(format: Format? = nil) {
        self.format = format ?? (isatty(STDOUT_FILENO) == 1 ? .human : .ndjson)
    }

    public func write(_ batch: [EventEnvelope]) async throws {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(batch.count * 200)
        for event in batch {
            switch format {
            case .ndjson: event.appendNDJSON(to: &bytes)
            case .human: Self.appendHumanLine(event, to: &bytes)
            }
        }
        try FileDescriptorWriter.writeAll(bytes, to: STDOUT_FILENO, path: "<stdout>")
    }

    private static func appendHumanLine(_ event: EventEnvelope, to bytes: inout [UInt8]) {
        let time = event.occurredAt.rfc3339.utf8
        // hh:mm:ss.mmm out of yyyy-mm-ddThh:mm:ss.ffffffZ
        bytes.append(contentsOf: time.dropFirst(11).prefix(12))
        bytes.append(contentsOf: "  ".utf8)
        bytes.append(contentsOf: (event.feature ?? "-").utf8)
        bytes.append(contentsOf: "  ".utf8)
        bytes.append(contentsOf: event.name.utf8)
        event.properties.forEachSorted { key, value in
            bytes.append(UInt8(ascii: " "))
            bytes.append(contentsOf: key.utf8)
            bytes.append(UInt8(ascii: "="))
            switch value {
            case .string(let string): bytes.append(contentsOf: string.utf8)
            default: JSONWriter.appendValue(value, to: &bytes)
            }
        }
        if let actor = event.actorID {
            bytes.append(contentsOf: "  user=".utf8)
            bytes.append(contentsOf: actor.utf8)
        }
        bytes.append(UInt8(ascii: "\n"))
    }
}
