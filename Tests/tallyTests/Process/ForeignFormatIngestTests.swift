import Foundation
import TallyCore
import TallyFileStore
import TallyTestSupport
import Testing

/// Segment and PostHog exports into the file store, through the `tally` binary as a user runs it.
@Suite("Segment and PostHog files into the file store (CLI)", .serialized)
struct ForeignFormatIngestTests {
    static func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess("tally", arguments: arguments).wait()
    }

    static func report(_ stdout: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as! [String: Any]
    }

    @Test(
        "every call type, nested properties, Title Case names, string ids, batch wrappers: zero rejects, exact counts, byte-exact properties, a re-run stores nothing new"
    )
    func segmentAndPostHogIntoFileStore() async throws {
        let directory = NSTemporaryDirectory() + "tally-foreign-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let samples = ForeignSamples(count: 400)
        let segment = directory + "/segment.ndjson"
        let posthog = directory + "/posthog.jsonl"
        try (samples.segmentLines.joined(separator: "\n") + "\n").write(
            toFile: segment,
            atomically: true,
            encoding: .utf8
        )
        try (samples.postHogLines.joined(separator: "\n") + "\n").write(
            toFile: posthog,
            atomically: true,
            encoding: .utf8
        )
        let data = directory + "/data"

        for (index, arguments) in [
            [segment, "--format", "segment"], [posthog, "--format", "posthog"], [segment, posthog],
        ].enumerated() {
            let result = try await Self.run(
                ["ingest"] + arguments + ["--data-dir", data, "--report", "json", "--quiet"]
            )
            #expect(result.status == 0, "\(result.stderr)")
            let report = try Self.report(result.stdout)
            #expect(report["rejected"] as? Int == 0, "\(result.stdout)")
            let expected = index == 0 ? 400 : index == 1 ? 400 : 800
            #expect(report["accepted"] as? Int == expected)
        }

        // What the store holds, each event once, against the generator's own counts.
        let reader = FileStoreReader(directory: data)
        var names: [String: Set<EventID>] = [:]
        try reader.forEachEvent { names[$0.name, default: []].insert($0.eventID) }
        #expect(names.mapValues(\.count) == samples.eventCounts)
        var identities: [String: Set<EventID>] = [:]
        try reader.forEachIdentity { identities[$0.kind.rawValue, default: []].insert($0.eventID) }
        #expect(identities.mapValues(\.count) == samples.identityCounts)

        // Properties byte for byte: every stored copy carries exactly the text that was sent.
        var expectedProperties: [String: String] = [:]
        for sent in samples.sent { expectedProperties[sent.id] = sent.properties }
        var checked = 0
        for folder in ["events", "identities"] {
            for file in try FileManager.default.contentsOfDirectory(atPath: data + "/" + folder) {
                for line in try String(contentsOfFile: data + "/\(folder)/" + file, encoding: .utf8).split(
                    separator: "\n"
                ) {
                    let object = try JSONParser.parse(String(line))
                    let key = object["source_id"]?.stringValue ?? object["event_id"]!.stringValue!
                    let sent = try #require(expectedProperties[key], "\(key) was never sent")
                    #expect(line.contains(#""properties":"# + sent), "\(key): \(line)")
                    checked += 1
                }
            }
        }
        #expect(checked == 2 * 800)  // each file ingested twice, every copy checked

        // The summary counts each event once, however often it was ingested.
        let summary = try await Self.run(["summary", "--by", "event", "--format", "json", "--data-dir", data])
        #expect(summary.status == 0, "\(summary.stderr)")
        let totals = try Self.report(summary.stdout)
        #expect(totals["total_events"] as? Int == samples.eventCounts.values.reduce(0, +))
        let identityCounts = totals["identities"] as? [String: Int]
        #expect(identityCounts?.filter { $0.value > 0 } == samples.identityCounts)
    }

    @Test("one message sent with a dashed, an upper-case, a 32-hex and a braced UUID is stored once")
    func uuidSpellingsAreOneEvent() async throws {
        let directory = NSTemporaryDirectory() + "tally-ids-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let id = "0192f5e4-8c3a-7b21-9f00-1a2b3c4d5e6f"
        let spellings = [id, id.uppercased(), id.replacingOccurrences(of: "-", with: ""), "{\(id)}"]
        let lines =
            spellings.map {
                #"{"type":"track","event":"Order Completed","messageId":"\#($0)","userId":"u1","timestamp":"2026-11-20T10:00:00.000Z","sentAt":"2026-11-20T10:00:0\#($0.count % 10).000Z","properties":{"total":27.50}}"#
            }
            + spellings.map {
                #"{"event_id":"\#($0)","name":"Order Completed","occurred_at":"2026-11-20T10:00:00.000Z","properties":{"total":27.50}}"#
            }
        let input = directory + "/ids.ndjson"
        try lines.joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let data = directory + "/data"
        let result = try await Self.run(["ingest", input, "--data-dir", data, "--report", "json", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.report(result.stdout)["rejected"] as? Int == 0)
        let summary = try await Self.run(["summary", "--by", "event", "--format", "json", "--data-dir", data])
        let totals = try Self.report(summary.stdout)
        #expect(totals["total_events"] as? Int == 1, "\(summary.stdout)")
        #expect(totals["duplicates_skipped"] as? Int == 7)
    }
}
