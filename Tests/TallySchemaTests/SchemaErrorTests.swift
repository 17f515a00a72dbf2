import Foundation
import TallySchema
import Testing

@Suite("Schema errors")
struct SchemaErrorTests {
    @Test("SchemaError codes print as the snake_case codes lint output ends with")
    func schemaCodes() {
        let codes: [(SchemaError.Code, String)] = [
            (.malformedFile, "malformed_file"), (.unsupportedKeyword, "unsupported_keyword"),
            (.invalidKeyword, "invalid_keyword"), (.invalidPattern, "invalid_pattern"),
            (.unsupportedFormat, "unsupported_format"), (.invalidName, "invalid_name"),
            (.nameCollision, "name_collision"), (.duplicateEvent, "duplicate_event"),
            (.invalidVersion, "invalid_version"), (.unknownScreen, "unknown_screen"), (.missingField, "missing_field"),
        ]
        for (code, name) in codes { #expect(code.description == name) }
        #expect(Set(codes.map(\.0)).count == codes.count, "distinct")
        #expect(
            SchemaError(.invalidKeyword, file: "plans/search.json", path: "$.events[0]", message: "bad").description
                == "plans/search.json: $.events[0]: bad [invalid_keyword]"
        )
    }

    @Test("PatternError: invalid or unsupported, with the pattern and the reason")
    func patternCodes() throws {
        #expect(PatternError.Code.invalid.description == "invalid")
        #expect(PatternError.Code.unsupported.description == "unsupported")
        let error = try #require(#expect(throws: PatternError.self) { try Pattern("[a") })
        #expect(error.code == .invalid)
        #expect(error.source == "[a")
        #expect(error.description == #"invalid pattern "[a": missing ']'"#)
        // Lookbehind is outside tally's matcher; the fallback engine takes it, or it is unsupported.
        do {
            _ = try Pattern("(?<=a)b")
        } catch {
            #expect(error.code == .unsupported)
        }
    }

    @Test("a registry that fails to load lists every problem, each with its file and code")
    func loadErrorCodes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tally-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let plan = #"""
            {"feature": "Search", "description": "d", "screens": ["search"], "events": [
              {"name": "search_viewed", "version": "1", "description": "d", "properties": {"type": "object"}}
            ]}
            """#
        try Data(plan.utf8).write(to: directory.appendingPathComponent("search.json"))
        let error = try #require(
            #expect(throws: SchemaRegistry.LoadError.self) { try SchemaRegistry.load(directory: directory.path) }
        )
        #expect(error.problems.map(\.code).contains(.invalidName))
        #expect(error.problems.map(\.code).contains(.invalidVersion))
        #expect(error.problems.allSatisfy { $0.file?.hasSuffix("search.json") == true })
    }
}
