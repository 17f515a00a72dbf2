import Foundation
import TallySchema
import Testing

@Suite("Schema diff")
struct SchemaDiffTests {
    static func registry(_ versions: [(version: String, properties: String)]) throws -> SchemaRegistry {
        let events = versions.map { entry in
            #"{"name": "cart_viewed", "version": "\#(entry.version)", "description": "d", "properties": \#(entry.properties)}"#
        }.joined(separator: ",")
        let directory = try Fixtures.registry([
            "shop.json": #"{"feature": "shop", "description": "d", "screens": ["cart"], "events": [\#(events)]}"#
        ])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try SchemaRegistry.load(directory: directory)
    }

    static let base =
        #"{"type":"object","properties":{"items":{"type":"integer","minimum":0},"coupon":{"type":"string"}},"required":["items"],"additionalProperties":false}"#

    @Test("a required property added under an ADDITION bump is caught")
    func requiredPropertyUnderAddition() throws {
        let old = try Self.registry([("1-0-0", Self.base)])
        let added =
            #"{"type":"object","properties":{"items":{"type":"integer","minimum":0},"coupon":{"type":"string"},"currency":{"type":"string"}},"required":["items","currency"],"additionalProperties":false}"#
        let new = try Self.registry([("1-0-0", Self.base), ("1-0-1", added)])
        let diff = SchemaDiff(old: old, new: new)
        #expect(!diff.isAcceptable)
        let report = try #require(diff.reports.first)
        #expect(report.requiredBump == .model)
        #expect(report.declaredBump == .addition)
        #expect(report.changes.contains { $0.summary == "required property currency added" })
        // The same change as a MODEL bump is fine.
        let model = try Self.registry([("1-0-0", Self.base), ("2-0-0", added)])
        #expect(SchemaDiff(old: old, new: model).isAcceptable)
    }

    @Test(
        "changes are classified by SchemaVer rules",
        arguments: [
            (
                #"{"type":"object","properties":{"items":{"type":"integer","minimum":0}},"required":["items"],"additionalProperties":false}"#,
                SchemaChange.model
            ),
            (
                #"{"type":"object","properties":{"items":{"type":"string"},"coupon":{"type":"string"}},"required":["items"],"additionalProperties":false}"#,
                .model
            ),
            (
                #"{"type":"object","properties":{"items":{"type":"integer","minimum":0},"coupon":{"type":"string"}},"required":["items","coupon"],"additionalProperties":false}"#,
                .model
            ),
            (
                #"{"type":"object","properties":{"items":{"type":"integer","minimum":1},"coupon":{"type":"string"}},"required":["items"],"additionalProperties":false}"#,
                .revision
            ),
            (
                #"{"type":"object","properties":{"items":{"type":"integer","minimum":0},"coupon":{"type":"string","pattern":"^[A-Z]+$"}},"required":["items"],"additionalProperties":false}"#,
                .revision
            ),
            (
                #"{"type":"object","properties":{"items":{"type":"integer"},"coupon":{"type":"string"}},"required":["items"],"additionalProperties":false}"#,
                .addition
            ),
            (
                #"{"type":"object","properties":{"items":{"type":"integer","minimum":0},"coupon":{"type":"string"},"note":{"type":"string"}},"required":["items"],"additionalProperties":false}"#,
                .addition
            ),
            (
                #"{"type":"object","properties":{"items":{"type":"integer","minimum":0},"coupon":{"type":"string"}},"additionalProperties":false}"#,
                .addition
            ),
        ]
    )
    func classification(properties: String, expected: SchemaChange) throws {
        let old = try Self.registry([("1-0-0", Self.base)])
        let new = try Self.registry([("1-0-0", Self.base), ("9-0-0", properties)])
        #expect(SchemaDiff(old: old, new: new).reports.first?.requiredBump == expected)
    }

    @Test("editing a published version in place is refused")
    func editInPlace() throws {
        let old = try Self.registry([("1-0-0", Self.base)])
        let edited = Self.base.replacingOccurrences(of: #""minimum":0"#, with: #""minimum":5"#)
        let new = try Self.registry([("1-0-0", edited)])
        let report = try #require(SchemaDiff(old: old, new: new).reports.first)
        #expect(report.problem?.contains("edited in place") == true)
    }
}
