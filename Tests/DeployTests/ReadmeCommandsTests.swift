import Foundation
import TallyTestSupport
import Testing

/// Issue 15, items 8 and 12: the README's commands run release builds (so its figures are what a
/// user sees), and it says how to leave the local PostgreSQL, which `postgres.sh stop` helps with.
@Suite("README commands", .serialized)
struct ReadmeCommandsTests {
    static let documents = ["README.md", "deploy/local/README.md", "docs/ingest-and-summary.md"]

    /// Every line of the ```sh blocks of `file`.
    static func shellLines(_ file: String) throws -> [String] {
        let text = try String(contentsOfFile: TestDatabase.repository + "/" + file, encoding: .utf8)
        return Markdown.codeBlocks("sh", in: text).flatMap { $0.code.split(separator: "\n").map(String.init) }
    }

    @Test("no README command runs a debug build: `swift run` only with -c release, tally from scripts/install.sh")
    func releaseBuildsOnly() throws {
        var tallyCommands = 0
        for file in Self.documents {
            for line in try Self.shellLines(file) {
                let code = line.split(separator: "#", maxSplits: 1).first.map(String.init) ?? ""
                if code.contains("swift run") {
                    #expect(code.contains("swift run -c release"), "\(file): \(line)")
                }
                if code.hasPrefix("tally ") { tallyCommands += 1 }
            }
        }
        #expect(tallyCommands >= 10)
        let readme = try Self.shellLines("README.md")
        let install = readme.firstIndex { $0.hasPrefix("scripts/install.sh") }
        let firstTally = readme.firstIndex { $0.hasPrefix("tally ") }
        #expect(install != nil && firstTally != nil && install! < firstTally!, "install comes before the first tally")
        for script in ["scripts/demo.sh", "scripts/install.sh", "deploy/local/postgres.sh"] {
            let text = try String(contentsOfFile: TestDatabase.repository + "/" + script, encoding: .utf8)
            #expect(text.contains("swift build -c release --product tally"), "\(script) builds in release mode")
        }
    }

    @Test("scripts/install.sh says what it builds and where it puts tally")
    func installDryRun() throws {
        let result = try Script.run(["scripts/install.sh", "--dry-run", "--prefix", "/opt/tally-test"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout
                == "swift build -c release --product tally\ninstall -m 755 .build/release/tally /opt/tally-test/bin/tally\n"
        )
        #expect(try Script.run(["scripts/install.sh", "--bogus"]).status == 64)
    }

    @Test("leaving the local PostgreSQL: the README says unset DATABASE_URL, and postgres.sh stop prints it")
    func leavingLocalPostgres() throws {
        let readme = try String(contentsOfFile: TestDatabase.repository + "/README.md", encoding: .utf8)
        #expect(readme.contains("unset DATABASE_URL"))
        #expect(readme.contains(#"eval "$(deploy/local/postgres.sh stop)""#))
        // An empty directory stands for the cluster: a developer's own .tally/postgres is never touched.
        let directory = NSTemporaryDirectory() + "tally-local-pg-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for command in ["stop", "destroy"] {
            let result = try Script.run(
                ["deploy/local/postgres.sh", command],
                environment: ["TALLY_LOCAL_PG_DIR": directory]
            )
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(result.stdout == "unset DATABASE_URL\n", "\(command): only the line to eval on stdout")
            #expect(result.stderr.contains("unset DATABASE_URL"), "\(command): and why, on stderr")
        }
    }
}
