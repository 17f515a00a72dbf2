import Foundation
import TallyCore
import TallyOperations
import TallyTestSupport
import Testing

/// JSONTestSuite through `ingest`: as a line between two valid events, and fed whole.
@Suite("Ingest against JSONTestSuite")
struct JSONTestSuiteIngestTests {
    static func files() throws -> [(name: String, bytes: [UInt8])] {
        let directory = try ConformanceData.require("jsontestsuite/test_parsing")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().compactMap { name in
            FileManager.default.contents(atPath: directory.appendingPathComponent(name).path).map { (name, Array($0)) }
        }
    }

    @Test("every n_ file as a line between two valid events: both stored, every middle line rejected at its number")
    func asLines() async throws {
        let harness = try IngestHarness()
        defer { harness.cleanUp() }
        var checked = 0
        for (name, bytes) in try Self.files() where name.hasPrefix("n_") {
            var input = IngestHarness.validEvent("test_first", id: 1) + [0x0A]
            input += bytes
            input += [0x0A] + IngestHarness.validEvent("test_last", id: 2) + [0x0A]
            let path = harness.write("case.ndjson", input)
            let (report, stored, rejects) = try await harness.ingest(path)
            #expect(stored.map(\.name) == ["test_first", "test_last"], "\(name)")
            // The file may hold newlines (so several middle lines) or be blank (skipped, not an event).
            let middle = Array(2..<(report.lines))
            let blank = report.blankLines
            #expect(Set(rejects.map(\.line)).isSubset(of: Set(middle)), "\(name): rejects at \(rejects)")
            #expect(!rejects.isEmpty || blank > 0, "\(name): the middle must be rejected")
            #expect(rejects.count + blank == middle.count, "\(name): \(rejects) blank \(blank) of \(middle)")
            #expect(report.accepted + report.rejectedCount + report.blankLines == report.lines, "\(name)")
            checked += 1
        }
        print("JSONTestSuite n_ files as lines: \(checked) checked")
    }

    @Test("every file fed whole: no crash, no hang, every line accounted for")
    func whole() async throws {
        let harness = try IngestHarness()
        defer { harness.cleanUp() }
        for (name, bytes) in try Self.files() {
            let path = harness.write("whole.ndjson", bytes)
            let (report, stored, _) = try await harness.ingest(path, maxLineLength: 64 * 1024)
            #expect(report.accepted + report.rejectedCount + report.blankLines == report.lines, "\(name)")
            #expect(stored.count == report.accepted, "\(name)")
        }
    }
}
