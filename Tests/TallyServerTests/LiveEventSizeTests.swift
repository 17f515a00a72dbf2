import Foundation
import TallySchema
import TallyTestSupport
import Testing

/// The event size limit at its boundary through a real `tally serve` (file store) and curl: the
/// event of exactly the limit is stored byte for byte, the one a byte over is answered in
/// `rejected` with its size and kept in the dead letters, whole.
@Suite("tally serve, live event size limit", .serialized)
struct LiveEventSizeTests {
    @Test("exactly 32 KiB stored; 32 KiB + 1 rejected as too_large and dead-lettered; the rest stored")
    func boundary() async throws {
        let limit = ValidationLimits.defaultMaxEventBytes
        let work = NSTemporaryDirectory() + "tally-serve-size-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let (child, port) = try await LiveLimitsTests.start(work, timeouts: [])
        let lines = [
            try SizedEvent.line(envelopeBytes: limit, id: 1), try SizedEvent.line(envelopeBytes: limit + 1, id: 2),
            try SizedEvent.line(envelopeBytes: 300, id: 3),
        ]
        try (lines.joined(separator: "\n") + "\n").write(
            toFile: work + "/body.ndjson",
            atomically: true,
            encoding: .utf8
        )
        let curl = try await Script.run([
            "-c",
            #"curl -s -w ' %{http_code}' -H 'Content-Type: application/x-ndjson' --data-binary @"$1" "$2""#,
            "curl", work + "/body.ndjson", "http://127.0.0.1:\(port)/v1/events",
        ])
        #expect(curl.stdout.hasSuffix(" 200"), "\(curl.stdout) \(curl.stderr)")
        let reply = try JSONSerialization.jsonObject(with: Data(curl.stdout.dropLast(4).utf8)) as? [String: Any]
        #expect(reply?["accepted"] as? Int == 2)
        let rejected = (reply?["rejected"] as? [[String: Any]])?.first
        #expect(rejected?["index"] as? Int == 1)
        #expect(rejected?["reason"] as? String == "too_large")
        #expect((rejected?["message"] as? String)?.contains("\(limit + 1) bytes") == true)
        child.signal(SIGTERM)
        #expect(await child.wait(timeout: .seconds(60)).status == 0)

        let stored = try Self.lines(under: work + "/data/events")
        #expect(stored.count == 2)
        let exact = try #require(stored.first { $0.contains("8000-000000000001") })
        #expect(exact.utf8.count == limit, "stored as its envelope, exactly the limit")
        let deadLetters = try Self.lines(under: work + "/data/dead-letter")
        #expect(deadLetters.count == 1)
        let deadLetter = try #require(
            try JSONSerialization.jsonObject(with: Data((deadLetters.first ?? "").utf8)) as? [String: Any]
        )
        #expect(deadLetter["reason"] as? String == "too_large")
        #expect(deadLetter["index"] as? Int == 1)
        let event = try #require(deadLetter["event"] as? [String: Any])
        #expect(event["event_id"] as? String == "0190c5a2-0000-7000-8000-000000000002")
        let sent = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any]
        #expect(event["properties"] as? [String: String] == sent?["properties"] as? [String: String], "kept whole")
    }

    /// The lines of every `.ndjson` file under `directory`.
    static func lines(under directory: String) throws -> [String] {
        var lines: [String] = []
        for name in try FileManager.default.subpathsOfDirectory(atPath: directory) where name.hasSuffix(".ndjson") {
            let text = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
            lines += text.split(separator: "\n").map(String.init)
        }
        return lines
    }
}
