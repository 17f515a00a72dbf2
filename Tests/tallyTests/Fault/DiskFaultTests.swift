import Foundation
import TallyFileStore
import TallyTestSupport
import Testing

/// A full disk (a small tmpfs, mounted as root) and unwritable paths under the file store and the
/// rejects file: a clear error naming the path, nothing acknowledged that was not written, and a
/// store that still reads.
///
/// Only root can mount: as anyone else the suite is reported as skipped with that reason, and a
/// mount that fails even as root (a container without the capability) cancels the test, with the
/// error, rather than letting it pass.
@Suite(
    "Disk full and unwritable paths",
    .serialized,
    .enabled(if: geteuid() == 0, "mounting a tmpfs needs root: skipped")
)
struct DiskFaultTests {
    /// A fresh tmpfs of `size` (e.g. "2m"); cancels the test (a skip, with why) when it cannot be mounted.
    static func mount(size: String, readOnly: Bool = false) async throws -> String {
        let path = "/tmp/tally-tmpfs-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let result = try await Script.run(
            ["-c", "mount -t tmpfs -o size=\(size)\(readOnly ? ",ro" : "") tmpfs \(path)"],
            timeout: .seconds(30)
        )
        guard result.status == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            try Test.cancel(Comment(rawValue: "skipped: cannot mount a tmpfs here: \(result.stderr)"))
        }
        return path
    }

    static func unmount(_ path: String) {  // blocking: for `defer`
        _ = try? Script.blockingRun(["-c", "umount \(path)"], timeout: .seconds(30))
        try? FileManager.default.removeItem(atPath: path)
    }

    static func generate(_ events: Int, badEvery: Int = 0, to path: String) async throws {
        let generated = try await TestDatabase.tally([
            "generate", "--events", "\(events)", "--bad-every", "\(badEvery)",
        ])
        try generated.stdout.write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test("the file store's disk fills up: exit 74 naming the path, every acknowledged event readable")
    func dataDirectoryFull() async throws {
        let disk = try await Self.mount(size: "2m")
        defer { Self.unmount(disk) }
        let work = NSTemporaryDirectory() + "tally-disk-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        try await Self.generate(20_000, to: work + "/events.ndjson")  // ~6 MB: three times the disk
        let result = try await TestDatabase.tally([
            "ingest", work + "/events.ndjson", "--data-dir", disk + "/data", "--quiet", "--report", "json",
        ])
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains(disk + "/data"), "names the path: \(result.stderr)")
        #expect(result.stderr.contains("No space left on device"), "\(result.stderr)")
        #expect(result.stderr.contains("could not be stored"), "\(result.stderr)")
        let report = StoreChecks.report(result.stdout)
        let acknowledged = (report["stored"] as? [String: Int])?["file"] ?? -1
        let notStored = try #require(report["not_stored"] as? Int)
        #expect(acknowledged + notStored == report["accepted"] as? Int, "every accepted event is accounted for")
        #expect(notStored > 0)
        // Readable, and holding at least every event it acknowledged.
        let (events, _) = try FileStoreReader(directory: disk + "/data").readAll()
        #expect(Set(events.map(\.eventID)).count >= acknowledged)
        let summary = try await TestDatabase.tally(["summary", "--data-dir", disk + "/data"])
        #expect(summary.status == 0, "\(summary.stderr)")
    }

    @Test("the rejects file's disk fills up: exit 74 naming it; the store stays intact")
    func rejectsFull() async throws {
        let disk = try await Self.mount(size: "64k")
        defer { Self.unmount(disk) }
        let work = NSTemporaryDirectory() + "tally-disk-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        try await Self.generate(5_000, badEvery: 1, to: work + "/events.ndjson")
        let result = try await TestDatabase.tally([
            "ingest", work + "/events.ndjson", "--data-dir", work + "/data", "--rejects", disk + "/rejects.ndjson",
            "--quiet",
        ])
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains(disk + "/rejects.ndjson"), "\(result.stderr)")
        #expect(result.stderr.contains("No space left on device"), "\(result.stderr)")
        let (events, report) = try FileStoreReader(directory: work + "/data").readAll()
        #expect(report.unreadableLines.isEmpty && report.tornLines == 0)
        #expect(Set(events.map(\.eventID)).count == events.count)
    }

    @Test("unwritable data or rejects directory: exit 73 naming it, before reading anything")
    func unwritablePaths() async throws {
        let readOnly = try await Self.mount(size: "1m", readOnly: true)
        defer { Self.unmount(readOnly) }
        let input = NSTemporaryDirectory() + "tally-disk-\(UUID().uuidString).ndjson"
        defer { try? FileManager.default.removeItem(atPath: input) }
        try await Self.generate(10, to: input)
        for (arguments, path) in [
            (["--data-dir", readOnly + "/data"], readOnly + "/data"),
            (["--data-dir", "/etc/hostname/data"], "/etc/hostname/data"),
            (["--data-dir", NSTemporaryDirectory() + "tally-ok", "--rejects", readOnly + "/r.ndjson"], readOnly),
        ] {
            let result = try await TestDatabase.tally(["ingest", input, "--quiet"] + arguments, timeout: .seconds(60))
            #expect(result.status == 73, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("cannot write to \(path)"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }
}
