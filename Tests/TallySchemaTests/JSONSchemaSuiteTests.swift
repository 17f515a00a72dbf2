import Foundation
import TallyCore
import TallySchema
import TallyTestSupport
import Testing

/// The official JSON-Schema-Test-Suite: every group whose schema compiles must agree on every case;
/// groups the compiler refuses (references to other documents, formats tally does not check) are
/// listed with the reason, not failed. Prints the per-keyword table of docs/tracking-plans.md.
@Suite("JSON-Schema-Test-Suite")
struct JSONSchemaSuiteTests {
    /// The optional files run besides the required ones: the formats tally checks, and big numbers
    /// (`multipleOf` and `integer` on values a double cannot hold exactly).
    static var optionalFiles: [String] {
        SchemaFormat.allCases.map { "optional/format/\($0.rawValue)" } + ["optional/bignum", "optional/float-overflow"]
    }

    /// Cases tally knowingly answers differently, by "draft/file: group / case", with the reason.
    /// They are reported, not failed; every other case of a compiled group must agree.
    static let exceptions: [String: String] = [:]

    /// One keyword file's results in one draft.
    struct Row {
        var groupsRun = 0
        var casesPassed = 0
        var casesTotal = 0
        /// Why each refused group was refused.
        var skipped: [(group: String, reason: String)] = []
    }

    /// Runs the files of `draft` (`draft4`, `draft7`), by file name without `.json`.
    static func run(draft: String) throws -> (rows: [String: Row], disagreements: [String], excepted: [String]) {
        let directory = try ConformanceData.require("json-schema-test-suite/tests/\(draft)")
        let compiler = SchemaCompiler(dialect: draft == "draft4" ? .draft04 : .draft07)
        let required = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }
        var rows: [String: Row] = [:]
        var disagreements: [String] = []
        var excepted: [String] = []
        for file in required.sorted() + optionalFiles {
            guard let data = FileManager.default.contents(atPath: directory.path + "/\(file).json") else { continue }
            guard case .array(let groups) = try JSONParser.parse(Array(data)) else { continue }
            var row = Row()
            for group in groups {
                let name = group["description"]?.stringValue ?? "?"
                let schema: JSONSchema
                do {
                    schema = try compiler.compile(group["schema"]!)
                } catch {
                    row.skipped.append((name, reason(for: error, schema: group["schema"]!)))
                    continue
                }
                row.groupsRun += 1
                guard case .array(let tests)? = group["tests"] else { continue }
                for test in tests {
                    row.casesTotal += 1
                    let label = "\(draft)/\(file): \(name) / \(test["description"]?.stringValue ?? "?")"
                    if schema.accepts(test["data"]!) == (test["valid"] == .bool(true)) {
                        row.casesPassed += 1
                    } else if let why = exceptions[label] {
                        excepted.append("\(label): \(why)")
                    } else {
                        disagreements.append(label)
                    }
                }
            }
            rows[file] = row
        }
        return (rows, disagreements, excepted)
    }

    /// A short reason for the table: the kind of refusal rather than the whole message.
    static func reason(for error: SchemaError, schema: JSONValue) -> String {
        if error.code == .unsupportedFormat { return "format \(schema["format"]?.stringValue ?? "?")" }
        if error.code == .unsupportedKeyword, error.path.hasSuffix(".$ref") { return "$ref to another document" }
        return error.message
    }

    @Test("draft-04 and draft-07: 100% agreement on every group that compiles, optional formats included")
    func suite() throws {
        let draft4 = try Self.run(draft: "draft4")
        let draft7 = try Self.run(draft: "draft7")
        for (draft, result) in [("draft-04", draft4), ("draft-07", draft7)] {
            #expect(result.disagreements.isEmpty, "\(draft):\n\(result.disagreements.joined(separator: "\n"))")
            #expect(result.rows.values.map(\.casesTotal).reduce(0, +) > 500)
            for line in result.excepted { print("documented exception: \(line)") }
        }
        // Everything tally claims to support ran: no required keyword file is skipped whole.
        for (file, row) in draft4.rows.merging(draft7.rows, uniquingKeysWith: { $1 })
        where !file.hasPrefix("ref") && file != "definitions" && file != "format" && !file.hasPrefix("optional") {
            #expect(row.groupsRun > 0, "\(file) did not run")
        }
        print(Self.table(draft4: draft4.rows, draft7: draft7.rows))
    }

    /// The Markdown table of docs/tracking-plans.md, then the refused groups.
    static func table(draft4: [String: Row], draft7: [String: Row]) -> String {
        func cases(_ row: Row?) -> String {
            guard let row else { return "—" }
            return row.casesTotal == 0 ? "0" : "\(row.casesPassed)/\(row.casesTotal)"
        }
        func skipped(_ row: Row?) -> String {
            guard let row, !row.skipped.isEmpty else { return row == nil ? "—" : "0" }
            var counts: [String: Int] = [:]
            for skip in row.skipped { counts[skip.reason, default: 0] += 1 }
            let reasons = counts.sorted { $0.key < $1.key }.map { "\($0.value) × \($0.key)" }
            return "\(row.skipped.count) of \(row.skipped.count + row.groupsRun): " + reasons.joined(separator: ", ")
        }
        var lines = [
            "| keyword file | draft-04 cases passed | draft-04 groups skipped | draft-07 cases passed "
                + "| draft-07 groups skipped |",
            "|---|---|---|---|---|",
        ]
        let files = Set(draft4.keys).union(draft7.keys).sorted { lhs, rhs in
            lhs.hasPrefix("optional") == rhs.hasPrefix("optional") ? lhs < rhs : !lhs.hasPrefix("optional")
        }
        for file in files {
            lines.append(
                "| \(file) | \(cases(draft4[file])) | \(skipped(draft4[file])) | \(cases(draft7[file])) "
                    + "| \(skipped(draft7[file])) |"
            )
        }
        func total(_ rows: [String: Row]) -> String {
            let passed = rows.values.map(\.casesPassed).reduce(0, +)
            let total = rows.values.map(\.casesTotal).reduce(0, +)
            let skipped = rows.values.map(\.skipped.count).reduce(0, +)
            let groups = rows.values.map(\.groupsRun).reduce(0, +) + skipped
            return "\(passed)/\(total) | \(skipped) of \(groups)"
        }
        lines.append("| **all** | \(total(draft4)) | \(total(draft7)) |")
        lines.append("")
        for (draft, rows) in [("draft-04", draft4), ("draft-07", draft7)] {
            for (file, row) in rows.sorted(by: { $0.key < $1.key }) {
                for skip in row.skipped { lines.append("\(draft) skipped: \(file): \(skip.group) (\(skip.reason))") }
            }
        }
        return lines.joined(separator: "\n")
    }
}
