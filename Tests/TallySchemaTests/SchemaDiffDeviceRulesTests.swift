import Foundation
import TallySchema
import Testing

/// `tally schema diff` sees what the device does before sending: personal-data marks and sample
/// rates live beside the properties' schemas, not in their constraints.
@Suite("Schema diff: personal data and sampling")
struct SchemaDiffDeviceRulesTests {
    /// `cart_viewed` in the given versions: (version, `email`'s extra keywords, the event's extra members).
    static func registry(_ versions: [(String, email: String, event: String)]) throws -> SchemaRegistry {
        let events = versions.map { version, email, event in
            #"{"name": "cart_viewed", "version": "\#(version)", "description": "d"\#(event), "properties": "#
                + #"{"type": "object", "properties": {"email": {"type": "string"\#(email)}}}}"#
        }.joined(separator: ",")
        let directory = try Fixtures.registry([
            "shop.json": #"{"feature": "shop", "description": "d", "screens": ["cart"], "events": [\#(events)]}"#
        ])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try SchemaRegistry.load(directory: directory)
    }

    static let hash = #", "x-tally-personal-data": "hash""#
    static let remove = #", "x-tally-personal-data": "remove""#

    @Test(
        "marking, unmarking or re-marking personal data is MODEL",
        arguments: [
            ("", hash, "email: now hashed on the device (x-tally-personal-data)"),
            (hash, "", "email: no longer hashed on the device, sent as it is"),
            (hash, remove, "email: removed on the device instead of hashed"),
        ]
    )
    func personalData(before: String, after: String, summary: String) throws {
        let old = try Self.registry([("1-0-0", before, "")])
        let new = try Self.registry([("1-0-0", before, ""), ("1-0-1", after, "")])
        let report = try #require(SchemaDiff(old: old, new: new).reports.first)
        #expect(report.changes.map(\.description) == ["MODEL: \(summary)"])
        #expect(report.problem?.contains("needs a MODEL bump") == true, "\(report.problem ?? "none")")
        let model = try Self.registry([("1-0-0", before, ""), ("2-0-0", after, "")])
        #expect(SchemaDiff(old: old, new: model).isAcceptable)
    }

    @Test("a sample rate set or changed is ADDITION; the same rules unchanged are no change")
    func sampleRate() throws {
        let old = try Self.registry([("1-0-0", Self.hash, "")])
        let sampled = try Self.registry([
            ("1-0-0", Self.hash, ""), ("1-0-1", Self.hash, #", "x-tally-sample-rate": 0.1"#),
        ])
        let report = try #require(SchemaDiff(old: old, new: sampled).reports.first)
        #expect(
            report.changes.map(\.description) == [
                "ADDITION: sample rate none (every user's events) → 0.1 (x-tally-sample-rate)"
            ]
        )
        #expect(report.problem == nil)
        #expect(SchemaDiff(old: old, new: old).reports.isEmpty)
    }

    @Test("a personal-data mark edited in place in a published version is caught")
    func editedInPlace() throws {
        let old = try Self.registry([("1-0-0", "", "")])
        let edited = try Self.registry([("1-0-0", Self.remove, "")])
        let report = try #require(SchemaDiff(old: old, new: edited).reports.first)
        #expect(report.problem == "version 1-0-0 was edited in place: publish a new version instead")
    }
}
