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
        let events = directory + "/events"
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline,
            (try? FileManager.default.contentsOfDirectory(atPath: events))?.isEmpty != false
        {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(200))

        let signalled = ContinuousClock.now
        child.signal(SIGTERM)
        let result = child.wait(timeout: .seconds(30))
        let elapsed = ContinuousClock.now - signalled
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
        // Long enough for it to start and block on the read.
        try await Task.sleep(for: .seconds(1))
        let signalled = ContinuousClock.now
        child.signal(SIGTERM)
        let result = child.wait(timeout: .seconds(30))
        let elapsed = ContinuousClock.now - signalled
        try? input.fileHandleForWriting.close()
        #expect(elapsed < .seconds(1), "exited \(elapsed) after SIGTERM")
        #expect(result.status == 75, "interrupted: \(result.stderr)")
    }
}
