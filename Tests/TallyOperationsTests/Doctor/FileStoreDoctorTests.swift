import Foundation
import TallyCore
import TallyOperations
import Testing

/// `tally doctor` on the file store: a missing store fails; torn tails, days in the future, files
/// the store does not read and waiting rejects warn, with counts and the newest reason.
@Suite("tally doctor on the file store")
struct FileStoreDoctorTests {
    static let now = Timestamp(rfc3339: "2026-11-28T12:00:00Z")!

    static func store(_ files: [String: String]) throws -> String {
        let root = NSTemporaryDirectory() + "tally-doctor-" + UUID().uuidString
        for (path, text) in files {
            let full = root + "/" + path
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true
            )
            try text.write(toFile: full, atomically: true, encoding: .utf8)
        }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        return root
    }

    static func check(_ checks: [DoctorCheck], _ name: String) -> DoctorCheck? {
        checks.first { $0.name == name }
    }

    @Test("no store fails with advice")
    func missingStore() {
        let checks = FileStoreDoctor(directory: "/nonexistent/tally-data").checks(now: Self.now)
        #expect(checks.count == 1)
        #expect(checks[0].status == .failure)
        #expect(checks[0].message == "no file store at /nonexistent/tally-data")
        #expect(checks[0].advice != nil)
    }

    @Test("a healthy store passes every check")
    func healthy() throws {
        let root = try Self.store(["events/events-2026-11-27.ndjson": "{}\n{}\n"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let report = DoctorReport(store: root, checks: FileStoreDoctor(directory: root).checks(now: Self.now))
        #expect(report.status == .ok, "\(report.renderText())")
        #expect(Self.check(report.checks, "event files")?.message.hasPrefix("1 in 1 day(s), 2026-11-27") == true)
        #expect(report.renderText().hasSuffix("all \(report.checks.count) checks passed\n"))
    }

    @Test("torn tails, future days, strangers and rejects warn; nothing fails")
    func warnings() throws {
        let root = try Self.store([
            "events/events-2026-11-27.ndjson": "{}\n{\"event_id\":\"01",
            "events/events-2099-01-01.ndjson": "{}\n",
            "events/notes.txt": "mine",
            "dead-letter/dead-letter-2026-11-27.ndjson": "{\"reason\":\"sink_failed\"}\n",
            "dead-letter/collector-rejects-2026-11-26.ndjson":
                "{\"reason\":\"unknown_event\"}\n{\"reason\":\"type_mismatch\"}\n",
            "rejects/ingest-20261127T100000Z.ndjson": "{\"reason\":\"malformed_json\"}\n",
        ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let checks = FileStoreDoctor(directory: root).checks(now: Self.now)
        let report = DoctorReport(store: root, checks: checks)
        #expect(report.status == .warning, "\(report.renderText())")
        #expect(Self.check(checks, "torn lines")?.message.contains("events-2026-11-27.ndjson") == true)
        #expect(Self.check(checks, "future days")?.message.contains("2099-01-01") == true)
        #expect(Self.check(checks, "other files")?.message.contains("notes.txt") == true)
        #expect(Self.check(checks, "dead letters")?.message.hasPrefix("1 in 1 file(s)") == true)
        #expect(
            Self.check(checks, "collector rejects")?.message.hasSuffix("newest reason: type_mismatch") == true,
            "the newest file's last line"
        )
        #expect(Self.check(checks, "ingest rejects")?.message.hasSuffix("newest reason: malformed_json") == true)
        #expect(checks.allSatisfy { $0.status != .failure })
        #expect(report.renderText().contains("0 failed, 6 warnings"))
    }
}
