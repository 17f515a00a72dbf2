import Foundation
import TallyCore
import TallySchema
import TallyTestSupport
import Testing

/// The official JSON-Schema-Test-Suite: every group whose schema uses only supported keywords must
/// agree on every case; groups with unsupported keywords are listed, not failed.
@Suite("JSON-Schema-Test-Suite")
struct JSONSchemaSuiteTests {
    @Test("draft-07 and draft-04: 100% agreement on supported groups", arguments: ["draft7", "draft4"])
    func suite(draft: String) throws {
        guard let directory = ConformanceData.directory("json-schema-test-suite/tests/\(draft)") else { return }
        let compiler = SchemaCompiler(dialect: draft == "draft4" ? .draft04 : .draft07)
        var passed: [String: Int] = [:]
        var skippedGroups: [String] = []
        var disagreements: [String] = []
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        for file in files.sorted() {
            let keyword = String(file.dropLast(5))
            let data = try #require(FileManager.default.contents(atPath: directory.appendingPathComponent(file).path))
            guard case .array(let groups) = try JSONParser.parse(Array(data)) else { continue }
            for group in groups {
                let name = "\(keyword): \(group["description"]?.stringValue ?? "?")"
                let schema: JSONSchema
                do {
                    schema = try compiler.compile(group["schema"]!)
                } catch {
                    skippedGroups.append("\(name) (\(error.message))")
                    continue
                }
                guard case .array(let tests)? = group["tests"] else { continue }
                for test in tests {
                    let expected = test["valid"] == .bool(true)
                    if schema.accepts(test["data"]!) == expected {
                        passed[keyword, default: 0] += 1
                    } else {
                        disagreements.append("\(name) / \(test["description"]?.stringValue ?? "?")")
                    }
                }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n"))")
        let summary = passed.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        print("\(draft): cases passed per keyword file: \(summary)")
        print(
            "\(draft): \(skippedGroups.count) groups skipped for unsupported keywords: \(skippedGroups.joined(separator: "; "))"
        )
        #expect(passed.values.reduce(0, +) > 100)
    }
}
