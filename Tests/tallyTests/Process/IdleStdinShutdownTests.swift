import Foundation
import TallyFileStore
import TallyTestSupport
import Testing

/// SIGTERM to `tally ingest` reading a stdin that sends nothing more: the wait for input ends at
/// once (it is a `poll(2)` off the cooperative pool), and what was accepted is stored.
@Suite("Shutdown of an ingest waiting on stdin", .serialized)
struct IdleStdinShutdownTests {
    static func ingest(dataDirectory: String, input: Pipe) throws -> ChildProcess {
        try ChildProcess(
            "tally",
            arguments: ["ingest", "-", "--data-dir", dataDirectory, "--quiet", "--report", "json"],
            standardInput: input
        )
    }

    /// Whether a thread of `pid` is in `poll(2)` or `ppoll(2)` (Linux: `/proc/PID/task/*/syscall`
    /// starts with the number of the system call a blocked thread is in).
    static func isPolling(_ pid: Int32) -> Bool {
        #if arch(x86_64)
            let calls: Set<Substring> = ["7", "271"]
        #else
            let calls: Set<Substring> = ["73"]
        #endif
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.contains { task in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/syscall", encoding: .utf8)) ?? ""
            return text.split(separator: " ").first.map(calls.contains) ?? false
        }
    }

    @Test("lines sent, then silence: SIGTERM exits within a second with every accepted event stored")
    func signalWhileStdinIsIdle() async throws {
        let directory = NSTemporaryDirectory() + "tally-idle-stdin-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sample = try String(
            contentsOfFile: TestDatabase.repository + "/Examples/sample/events.ndjson",
            encoding: .utf8
        )
        let lines = sample.split(separator: "\n").prefix(5).joined(separator: "\n") + "\n"

        let input = Pipe()
        let child = try Self.ingest(dataDirectory: directory, input: input)
        input.fileHandleForWriting.write(Data(lines.utf8))
        // The batch interval (1 s) writes them to the store: then they were surely read and accepted.
        try await Eventually.wait(until: "5 events stored") {
            (try? FileStoreReader(directory: directory).readAll().0.count) == 5
        }

        let signalled = ContinuousClock.now
        child.signal(SIGTERM)
        let result = await child.waitForExit(timeout: .seconds(30))
        let elapsed = result.exitedAt - signalled
        // stdin stays open all along: the exit owes nothing to an end of input.
        try? input.fileHandleForWriting.close()

        #expect(elapsed < .seconds(1), "exited \(elapsed) after SIGTERM")
        #expect(result.status == 75, "interrupted: \(result.stderr)")
        let report = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any]
        #expect(report?["accepted"] as? Int == 5, "\(result.stdout)")
        #expect(report?["interrupted"] as? Bool == true)
        let (stored, store) = try FileStoreReader(directory: directory).readAll()
        #expect(stored.count == 5)
        #expect(store.tornLines == 0)
    }

    @Test("nothing sent at all: SIGTERM exits within a second, nothing stored")
    func signalBeforeAnyInput() async throws {
        let directory = NSTemporaryDirectory() + "tally-idle-stdin-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = Pipe()
        let child = try Self.ingest(dataDirectory: directory, input: input)
        // Started, and waiting for input.
        try await Eventually.wait(until: "waiting on stdin") { Self.isPolling(child.process.processIdentifier) }
        let signalled = ContinuousClock.now
        child.signal(SIGTERM)
        let result = await child.waitForExit(timeout: .seconds(30))
        let elapsed = result.exitedAt - signalled
        try? input.fileHandleForWriting.close()
        #expect(elapsed < .seconds(1), "exited \(elapsed) after SIGTERM")
        #expect(result.status == 75, "interrupted: \(result.stderr)")
    }
}
