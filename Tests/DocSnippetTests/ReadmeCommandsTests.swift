import Foundation
import TallyTestSupport
import Testing

/// Every shell command of the README runs when copied in order from the repository root: its
/// ```sh blocks become one bash script (`set -e`: a command that fails fails the test), run in a
/// copy of the repository's Examples, scripts and deploy folders with this build's binaries on the
/// PATH. The exceptions are named, with their reasons, in ``skipped``; a check whose comment says
/// `(exit 1 on findings)` may exit 1.
@Suite("README commands")
struct ReadmeCommandsTests {
    /// Commands the suite does not run, and why.
    static let skipped: [(prefix: String, reason: String)] = [
        ("scripts/test.sh", "the suite itself"),
        ("scripts/demo.sh", "a release build of its own (10-15 minutes)"),
        ("scripts/install.sh", "a release build; an installed binary is tested by DoctorTests"),
    ]

    /// The README's ```sh blocks as commands: continued lines joined, comment-only lines dropped.
    static func commands(in readme: String) -> [String] {
        var commands: [String] = []
        var inBlock = false
        var pending = ""
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inBlock = line == "```sh"
                continue
            }
            guard inBlock else { continue }
            let text = String(line)
            if text.trimmingCharacters(in: .whitespaces).hasPrefix("#") && pending.isEmpty { continue }
            if text.hasSuffix("\\") {
                pending += text.dropLast() + " "
                continue
            }
            let command = (pending + text).trimmingCharacters(in: .whitespaces)
            pending = ""
            if !command.isEmpty { commands.append(command) }
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
    func readmeCommands() throws {
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
            // The README's paths and port, in this run's own folder and on a free port.
            let line = Self.withoutComment(command).replacingOccurrences(of: "/tmp/", with: scratch + "/tmp/")
                .replacingOccurrences(of: "8080", with: String(port))
            // A check that reports findings exits 1, as its comment says: that is a run, not a failure.
            let findings = command.hasSuffix("(exit 1 on findings)") ? " || [ $? -eq 1 ]" : ""
            script += "echo \(Self.quoted("+ " + line))\n" + line + findings + "\n"
        }
        let result = try Script.run(["-c", script], timeout: .seconds(900))
        #expect(result.status == 0, "\(result.stdout.suffix(4000))\n\(result.stderr.suffix(4000))")
        #expect(!result.stderr.contains("error: "), "\(result.stderr.suffix(4000))")
    }
}
