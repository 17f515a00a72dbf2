import Foundation
import TallyCore
import TallyOperations
import TallySchema

/// The ingest path on one core: read lines, decode, validate against the Examples plans, encode
/// to NDJSON and write to /dev/null; against Foundation's `JSONDecoder` decoding the same lines
/// into a Codable envelope. Both read the same file, in the same run.
enum IngestBenchmark {
    struct Result {
        var megabytes: Double
        var tallyMBps: Double
        var foundationMBps: Double
        var validation: String
    }

    /// What JSONDecoder decodes: the envelope's fields, properties as scalars.
    struct FoundationEnvelope: Decodable {
        enum Scalar: Decodable {
            case string(String), number(Double), bool(Bool), null

            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if container.decodeNil() {
                    self = .null
                } else if let bool = try? container.decode(Bool.self) {
                    self = .bool(bool)
                } else if let number = try? container.decode(Double.self) {
                    self = .number(number)
                } else {
                    self = .string(try container.decode(String.self))
                }
            }
        }

        struct Context: Decodable {
            var app_version: String?
            var app_build: String?
            var platform: String?
            var os_version: String?
            var locale: String?
        }

        var event_id: String?
        var name: String
        var feature: String?
        var properties: [String: Scalar]?
        var occurred_at: String
        var sent_at: String?
        var received_at: String?
        var user_id: String?
        var anonymous_id: String?
        var session_id: String?
        var context: Context?
        var schema_version: String?
    }

    static func run(lines: Int, rounds: Int) throws -> Result {
        let path = NSTemporaryDirectory() + "tally-bench-\(getpid()).ndjson"
        defer { unlink(path) }
        var data: [UInt8] = []
        SampleGenerator(events: lines).generate { line in
            data.append(contentsOf: line)
            data.append(UInt8(ascii: "\n"))
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(data)) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let registry = try? SchemaRegistry.load(directory: "Examples/registry")
        let validator = EventValidator(registry: registry)
        let megabytes = Double(data.count) / 1_000_000

        if ProcessInfo.processInfo.environment["TALLY_BENCH_STAGES"] != nil {
            try stages(path: path, validator: validator)
        }
        var tally = Samples(capacity: rounds)
        var foundation = Samples(capacity: rounds)
        for _ in 0..<rounds {
            var start = monotonicNanoseconds()
            let accepted = try tallyPass(path: path, validator: validator)
            tally.append(monotonicNanoseconds() - start)
            precondition(accepted == lines, "accepted \(accepted) of \(lines)")

            // TALLY_BENCH_ONLY_TALLY=1 skips Foundation (for profiling tally's side alone).
            if ProcessInfo.processInfo.environment["TALLY_BENCH_ONLY_TALLY"] != nil { continue }
            start = monotonicNanoseconds()
            let decoded = try foundationPass(path: path)
            foundation.append(monotonicNanoseconds() - start)
            precondition(decoded == lines)
        }
        return Result(
            megabytes: megabytes,
            tallyMBps: megabytes / (Double(tally.median) / 1e9),
            foundationMBps: megabytes / (Double(foundation.median) / 1e9),
            validation: registry == nil ? "structural (Examples/registry not found)" : "Examples tracking plans"
        )
    }

    /// Prints the time per line of each stage (for profiling).
    static func stages(path: String, validator: EventValidator) throws {
        let input = open(path, O_RDONLY)
        defer { close(input) }
        var reader = LineReader(descriptor: input, path: path)
        var lines: [[UInt8]] = []
        try reader.forEachLine { lines.append(Array($0.bytes)) }
        let decoder = EnvelopeDecoder()
        var start = monotonicNanoseconds()
        var events: [EventEnvelope] = []
        for line in lines {
            line.withUnsafeBufferPointer {
                events.append(try! decoder.decode($0, fallbackID: EventID(high: 0, low: 0)))
            }
        }
        print("decode", Double(monotonicNanoseconds() - start) / Double(lines.count))
        start = monotonicNanoseconds()
        var valid: [EventEnvelope] = []
        for event in events { valid.append(validator.validate(event).event) }
        print("validate", Double(monotonicNanoseconds() - start) / Double(lines.count))
        start = monotonicNanoseconds()
        var encoded: [UInt8] = []
        for event in valid {
            event.appendNDJSON(to: &encoded)
            if encoded.count > 1 << 20 { encoded.removeAll(keepingCapacity: true) }
        }
        print("encode", Double(monotonicNanoseconds() - start) / Double(lines.count))
        start = monotonicNanoseconds()
        var count = 0
        let again = open(path, O_RDONLY)
        var reader2 = LineReader(descriptor: again, path: path)
        try reader2.forEachLine { count += $0.bytes.count }
        close(again)
        print("read", Double(monotonicNanoseconds() - start) / Double(lines.count))
    }

    /// Read, decode, validate, encode, write to /dev/null: what `tally ingest` does per line.
    static func tallyPass(path: String, validator: EventValidator) throws -> Int {
        let input = open(path, O_RDONLY)
        let output = open("/dev/null", O_WRONLY)
        defer {
            close(input)
            close(output)
        }
        var reader = LineReader(descriptor: input, path: path)
        let decoder = EnvelopeDecoder()
        var encoded: [UInt8] = []
        encoded.reserveCapacity(1 << 20)
        var accepted = 0
        try reader.forEachLine { line in
            guard let event = try? decoder.decode(line.bytes, fallbackID: EventID(contentOf: line.bytes)) else {
                return
            }
            let result = validator.validate(event)
            guard result.isValid else { return }
            accepted += 1
            result.event.appendNDJSON(to: &encoded)
            if encoded.count >= 1 << 20 {
                try FileDescriptorWriter.writeAll(encoded, to: output, path: "/dev/null")
                encoded.removeAll(keepingCapacity: true)
            }
        }
        try FileDescriptorWriter.writeAll(encoded, to: output, path: "/dev/null")
        return accepted
    }

    /// The same file through Foundation: split lines, `JSONDecoder` each.
    static func foundationPass(path: String) throws -> Int {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let decoder = JSONDecoder()
        var count = 0
        for line in data.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
            _ = try decoder.decode(FoundationEnvelope.self, from: line)
            count += 1
        }
        return count
    }
}
