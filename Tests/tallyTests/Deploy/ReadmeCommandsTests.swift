import Foundation
import TallyTestSupport
import Testing

/// The README's commands run release builds (so its figures are what a user sees), every one of them
/// runs when copied in order from the repository root (a bash script of its ```sh blocks, `set -e`,
/// in a copy of Examples, scripts and deploy with this build's binaries on the PATH; the exceptions
/// are named with their reasons in ``skipped``; a check whose comment says `(exit 1 on findings)`
/// may exit 1), and it says how to leave the local PostgreSQL, which `postgres.sh stop` helps with.
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
    func installDryRun() async throws {
        let result = try await Script.run(["scripts/install.sh", "--dry-run", "--prefix", "/opt/tally-test"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout
                == "swift build -c release --product tally\ninstall -m 755 .build/release/tally /opt/tally-test/bin/tally\n"
        )
        #expect(try await Script.run(["scripts/install.sh", "--bogus"]).status == 64)
    }

    @Test("leaving the local PostgreSQL: the README says unset DATABASE_URL, and postgres.sh stop prints it")
    func leavingLocalPostgres() async throws {
        let readme = try String(contentsOfFile: TestDatabase.repository + "/README.md", encoding: .utf8)
        #expect(readme.contains("unset DATABASE_URL"))
        #expect(readme.contains(#"eval "$(deploy/local/postgres.sh stop)""#))
        // An empty directory stands for the cluster: a developer's own .tally/postgres is never touched.
        let directory = NSTemporaryDirectory() + "tally-local-pg-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for command in ["stop", "destroy"] {
            let result = try await Script.run(
                ["deploy/local/postgres.sh", command],
                environment: ["TALLY_LOCAL_PG_DIR": directory]
            )
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(result.stdout == "unset DATABASE_URL\n", "\(command): only the line to eval on stdout")
            #expect(result.stderr.contains("unset DATABASE_URL"), "\(command): and why, on stderr")
        }
    }

    /// Commands the suite does not run, and why.
    static let skipped: [(prefix: String, reason: String)] = [
        ("scripts/test.sh", "the suite itself"),
        ("scripts/demo.sh", "a release build of its own (10-15 minutes)"),
        ("scripts/install.sh", "a release build; an installed binary is tested by DoctorTests"),
    ]

    /// The README's ```sh blocks as commands: continued lines joined, comment-only lines dropped.
    static func commands(in readme: String) -> [String] {
        var commands: [String] = []
        for block in Markdown.codeBlocks("sh", in: readme) {
            var pending = ""
            for line in block.code.split(separator: "\n").map(String.init) {
                if line.trimmingCharacters(in: .whitespaces).hasPrefix("#") && pending.isEmpty { continue }
                if line.hasSuffix("\\") {
                    pending += line.dropLast() + " "
                    continue
                }
                let command = (pending + line).trimmingCharacters(in: .whitespaces)
                pending = ""
                if !command.isEmpty { commands.append(command) }
            }
        }
        return commands
    }

    /// A command line without its trailing `  # comment`.
    static func withoutComment(_ command: String) -> String {
        guard let range = command.range(of: "  #") else { return command }
        return String(command[..<range.lowerBound]).trimmingCharacters(in: .whitespaces)
    }

    /// `text` as one single-quoted shell word.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    @Test("the README's shell commands, in order, from a copy of the repository root")
    func readmeCommandsRun() async throws {
        let root = TestDatabase.repository
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        let commands = Self.commands(in: readme)
        #expect(commands.count > 20, "the README's commands were not found")
        let scratch = NSTemporaryDirectory() + "tally-readme-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: scratch + "/tmp", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        chmod(scratch, 0o755)  // the local PostgreSQL may run as the postgres user
        for folder in ["Examples", "scripts", "deploy"] {
            try FileManager.default.copyItem(atPath: root + "/" + folder, toPath: scratch + "/" + folder)
        }
        let port = try FreePort.next()
        let dashboardPort = try FreePort.next()
        let binaries = ChildProcess.binaryDirectory.path
        var script = """
            set -euo pipefail
            cd '\(scratch)'
            export PATH='\(binaries)':"$PATH" TALLY_BIN='\(binaries)/tally'
            unset DATABASE_URL TALLY_DATA_DIR PGHOST PGDATABASE
            # `swift run -c release NAME` runs this build's NAME: the suite built every product.
            swift() {
                if [ "$1 $2 $3" = "run -c release" ]; then shift 3; local name="$1"; shift; "\(binaries)/$name" "$@"
                else command swift "$@"; fi
            }
            cleanup() {
                kill $(jobs -p) 2>/dev/null || true
                deploy/local/postgres.sh destroy >/dev/null 2>&1 || true
            }
            trap cleanup EXIT

            """
        for command in commands {
            if let skip = Self.skipped.first(where: { command.hasPrefix($0.prefix) }) {
                script += "echo \(Self.quoted("# skipped: \(skip.prefix): \(skip.reason)"))\n"
                continue
            }
            // The README's paths and ports, in this run's own folder and on free ports.
            let line = Self.withoutComment(command).replacingOccurrences(of: "/tmp/", with: scratch + "/tmp/")
                .replacingOccurrences(of: "8080", with: String(port))
                .replacingOccurrences(of: "8090", with: String(dashboardPort))
            // A check that reports findings exits 1, as its comment says: that is a run, not a failure.
            let findings = command.hasSuffix("(exit 1 on findings)") ? " || [ $? -eq 1 ]" : ""
            script += "echo \(Self.quoted("+ " + line))\n" + line + findings + "\n"
        }
        let result = try await Script.run(["-c", script], timeout: .seconds(900))
        #expect(result.status == 0, "\(result.stdout.suffix(4000))\n\(result.stderr.suffix(4000))")
        #expect(!result.stderr.contains("error: "), "\(result.stderr.suffix(4000))")
    }
}
