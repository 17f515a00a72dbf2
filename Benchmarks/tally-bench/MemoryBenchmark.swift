import Foundation
import TallyOperations

/// Peak resident memory of a real `tally ingest` of a generated file into a fresh file store.
enum MemoryBenchmark {
    struct Result {
        var lines: Int
        var megabytes: Double
        var peakRSSMegabytes: Double
        var seconds: Double
    }

    static func run(lines: Int) throws -> Result {
        let directory = NSTemporaryDirectory() + "tally-rss-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = directory + "/input.ndjson"
        let output = open(input, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        SampleGenerator(events: lines, days: 30).generate { line in
            buffer.append(contentsOf: line)
            buffer.append(0x0A)
            if buffer.count >= 1 << 20 {
                _ = buffer.withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
                buffer.removeAll(keepingCapacity: true)
            }
        }
        _ = buffer.withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
        close(output)
        let size = (try FileManager.default.attributesOfItem(atPath: input)[.size] as? Int) ?? 0

        let tally = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "tally"
        )
        let process = Process()
        process.executableURL = tally
        process.arguments = ["ingest", input, "--data-dir", directory + "/data", "--quiet", "--report", "json"]
        let pipe = Pipe()
        process.standardOutput = pipe
        let started = Date()
        try process.run()
        let report = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(started)
        guard process.terminationStatus == 0 else { throw CocoaError(.executableLoad) }
        // The child reports its own peak (VmHWM): rusage of children would count this process's
        // memory, shared with the child between spawn and exec.
        let object = try JSONSerialization.jsonObject(with: report) as? [String: Any]
        let peak = object?["peak_rss_bytes"] as? Int ?? 0
        return Result(
            lines: lines,
            megabytes: Double(size) / 1_000_000,
            peakRSSMegabytes: Double(peak) / 1_048_576,
            seconds: seconds
        )
    }
}
