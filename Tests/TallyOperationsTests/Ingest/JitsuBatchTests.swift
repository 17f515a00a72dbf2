import Foundation
import TallyCore
import TallyOperations
import TallyTestSupport
import Testing

/// Jitsu's loader test batches (hostile names, type drift, nesting, emoji, empty files, no final
/// newline), each row wrapped as the properties of an event.
@Suite("Ingest of the Jitsu batches")
struct JitsuBatchTests {
    static func batches() throws -> [(name: String, bytes: [UInt8])] {
        let root = try ConformanceData.require("jitsu-bulker-ndjson")
        var result: [(String, [UInt8])] = []
        for folder in ["sql", "app", "file_storage"] {
            let directory = root.appendingPathComponent(folder)
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
            where name.hasSuffix(".ndjson") {
                if let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) {
                    result.append(("\(folder)/\(name)", Array(data)))
                }
            }
        }
        return result
    }

    /// Each non-blank row becomes `{"name":"jitsu_row_loaded","occurred_at":…,"properties":ROW}`; the
    /// final newline is kept exactly as the batch has it (or not).
    static func wrap(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() {
            if index == lines.count - 1 && line.isEmpty { break }
            if !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) {
                output += Array(#"{"name":"jitsu_row_loaded","occurred_at":"2026-11-22T10:00:00Z","properties":"#.utf8)
                output += line
                output += Array("}".utf8)
            }
            if index < lines.count - 1 { output.append(0x0A) }
        }
        return output
    }

    @Test(
        "every batch: a deterministic verdict per line, every line accounted for, the last line without newline loads"
    )
    func deterministicVerdicts() async throws {
        let harness = try IngestHarness()
        defer { harness.cleanUp() }
        var accepted = 0
        var rejected = 0
        for (name, bytes) in try Self.batches() {
            let path = harness.write("batch.ndjson", Self.wrap(bytes))
            let first = try await harness.ingest(path)
            let second = try await harness.ingest(path)
            #expect(first.rejects == second.rejects, "\(name)")
            #expect(first.stored.map(\.eventID) == second.stored.map(\.eventID), "\(name)")
            #expect(first.report.accepted + first.report.rejectedCount + first.report.blankLines == first.report.lines)
            if bytes.isEmpty { #expect(first.report.lines == 0 && first.stored.isEmpty, "\(name)") }
            if let last = bytes.last, last != 0x0A, !bytes.isEmpty {
                // The last line had no newline: it is read like any other.
                let lastLine = first.report.lines
                let verdict = first.rejects.contains { $0.line == lastLine } || first.stored.count > 0
                #expect(verdict, "\(name)")
            }
            accepted += first.report.accepted
            rejected += first.report.rejectedCount
        }
        print(
            "Jitsu batches: \(accepted) rows accepted, \(rejected) rejected (nested objects and arrays are not scalars)"
        )
    }

    @Test("hostile property names and values round-trip byte-exact through the file format")
    func hostileIdentifiers() async throws {
        let bytes = try #require(try Self.batches().first(where: { $0.name == "sql/identifiers.ndjson" })?.bytes)
        let harness = try IngestHarness()
        defer { harness.cleanUp() }
        let (_, stored, rejects) = try await harness.ingest(harness.write("ids.ndjson", Self.wrap(bytes)))
        #expect(rejects.isEmpty, "\(rejects)")
        let original = try JSONParser.parse(bytes.split(separator: 0x0A)[0])
        let keys = Set(original.objectMembers!.map(\.key))
        #expect(Set(stored[0].properties.sortedKeys) == keys)
        #expect(keys.contains("Test Name; DROP DATABASE public; SELECT 1 from DUAL;"))
        let reread = try EventEnvelope(ndjsonLine: stored[0].ndjsonLine.dropLast())
        #expect(reread == stored[0])
    }
}
