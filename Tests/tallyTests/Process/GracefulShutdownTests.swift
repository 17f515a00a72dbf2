import Foundation
import TallyCore
import TallyFileStore
import TallyTestSupport
import Testing

/// SIGTERM and SIGINT to a real process that is tracking: everything `track()` accepted is in
/// the file store afterwards.
@Suite("Graceful shutdown of a tracking process", .serialized)
struct GracefulShutdownTests {
    @Test("nothing track() accepted is lost", arguments: [SIGTERM, SIGINT])
    func signalLosesNothing(signal: Int32) async throws {
        let directory = NSTemporaryDirectory() + "tally-process-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let child = try ChildProcess(
            "episode-demo",
            arguments: ["--until-signal", "--no-stdout", "--data-dir", directory]
        )

        // Let it track for a while and write some batches (the in-app interval is 5 s; batches
        // of 100 fill much faster), then signal it in the middle of tracking.
        let eventsDirectory = directory + "/events"
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: eventsDirectory)) ?? []
            let size = files.reduce(0) { total, name in
                total
                    + ((try? FileManager.default.attributesOfItem(atPath: eventsDirectory + "/" + name)[.size] as? Int)
                        ?? 0)
            }
            if size > 200_000 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        child.signal(signal)
        let started = Date()
        let (status, _, stderr) = await child.wait()
        #expect(Date().timeIntervalSince(started) < 10, "exits within a bounded time")
        #expect(status == 0, "stderr: \(stderr)")

        let statistics = try #require(Self.statistics(stderr), "no statistics line in: \(stderr)")
        let (events, report) = try FileStoreReader(directory: directory).readAll()
        #expect(statistics["accepted", default: 0] > 500, "it was tracking when signalled")
        #expect(UInt64(events.count) == statistics["accepted", default: 0] - statistics["dropped", default: 0])
        #expect(statistics["delivered_file"] == UInt64(events.count))
        #expect(Set(events.map(\.eventID)).count == events.count)
        #expect(report.tornLines == 0 && report.unreadableLines.isEmpty)
    }

    /// Parses `episode-demo: accepted=N dropped=M …`.
    static func statistics(_ stderr: String) -> [String: UInt64]? {
        guard let line = stderr.split(separator: "\n").last(where: { $0.hasPrefix("episode-demo: ") }) else {
            return nil
        }
        var values: [String: UInt64] = [:]
        for field in line.dropFirst("episode-demo: ".count).split(separator: " ") {
            let parts = field.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = UInt64(parts[1]) { values[String(parts[0])] = value }
        }
        return values
    }
}
