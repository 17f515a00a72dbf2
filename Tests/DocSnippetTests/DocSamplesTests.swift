import Foundation
import TallyTestSupport
import Testing

/// Every Swift sample in the documentation compiles: each ```swift block of the README, docs/,
/// deploy/ and the DocC catalogs must appear verbatim (indentation aside) in this folder's
/// snippet files, which the test suite builds and runs. Package.swift fragments (first line
/// `// Package.swift`) are the exception: they only make sense inside a manifest.
@Suite("Documentation samples")
struct DocSamplesTests {
    static func markdownFiles(root: String) -> [String] {
        let manager = FileManager.default
        var files = ["README.md", "CHANGELOG.md"].filter { manager.fileExists(atPath: root + "/" + $0) }
        for directory in ["docs", "deploy", "Sources"] {
            let enumerator = manager.enumerator(atPath: root + "/" + directory)
            while let path = enumerator?.nextObject() as? String {
                if path.hasSuffix(".md") { files.append(directory + "/" + path) }
            }
        }
        return files.sorted()
    }

    /// Lines without their indentation, blank lines dropped: formatting aside, the same code.
    static func normalized(_ code: String) -> String {
        code.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .joined(separator: "\n")
    }

    @Test("every Swift sample in the docs is compiled snippet code")
    func samplesCompile() throws {
        let root = TestDatabase.repository
        let snippetDirectory = root + "/Tests/DocSnippetTests"
        let snippets = try FileManager.default.contentsOfDirectory(atPath: snippetDirectory)
            .filter { $0.hasSuffix(".swift") && $0 != "DocSamplesTests.swift" }
            .map { try String(contentsOfFile: snippetDirectory + "/" + $0, encoding: .utf8) }
        let compiled = Self.normalized(snippets.joined(separator: "\n"))
        var checked = 0
        for file in Self.markdownFiles(root: root) {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            for block in Markdown.codeBlocks("swift", in: text) where !block.code.hasPrefix("// Package.swift") {
                checked += 1
                #expect(
                    compiled.contains(Self.normalized(block.code)),
                    "\(file):\(block.line): this sample is not in Tests/DocSnippetTests (copy it there so it compiles)"
                )
            }
        }
        #expect(checked >= 8, "found the samples (\(checked))")
        print("documentation samples checked: \(checked)")
    }
}
