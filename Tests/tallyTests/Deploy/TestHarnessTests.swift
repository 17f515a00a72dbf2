import Foundation
import TallyTestSupport
import Testing

/// Tests that cannot pass by accident, and a scripts/test.sh that builds once.
@Suite("the test harness", .serialized)
struct TestHarnessTests {
    #if os(Linux)
        /// Runs one database test of this very test bundle in a child process, with `environment`.
        static func databaseTest(environment: [String: String]) async throws -> (status: Int32, output: String) {
            let result = try await ChildProcess(
                "tallyPackageTests.xctest",
                arguments: ["--testing-library", "swift-testing", "--filter", "DoctorTests"],
                environment: environment
            ).wait(timeout: .seconds(120))
            return (result.status, result.stdout + result.stderr)
        }

        @Test("a database test without a database fails under scripts/test.sh, with a clear message")
        func failsWhenDatabaseRequired() async throws {
            let run = try await Self.databaseTest(environment: [
                "TALLY_TEST_DATABASE_URL": "", "TALLY_TEST_REQUIRE_DATABASE": "1",
            ])
            #expect(run.status != 0, "\(run.output)")
            #expect(run.output.contains("TALLY_TEST_REQUIRE_DATABASE=1 but TALLY_TEST_DATABASE_URL is empty"))
        }

        @Test("in a plain swift test it is skipped (cancelled), saying why")
        func skipsInPlainSwiftTest() async throws {
            let run = try await Self.databaseTest(environment: [
                "TALLY_TEST_DATABASE_URL": "", "TALLY_TEST_REQUIRE_DATABASE": "",
            ])
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.contains("was cancelled"))
            #expect(run.output.contains("skipped: no TALLY_TEST_DATABASE_URL. A plain `swift test` skips"))
        }
    #endif

    @Test("scripts/test.sh requires the databases, builds once for build, docs and tests, and only TSan again")
    func testScriptBuildsOnce() throws {
        let script = try String(contentsOfFile: TestDatabase.repository + "/scripts/test.sh", encoding: .utf8)
        let commands = script.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.hasPrefix("#") }
        #expect(commands.contains("export TALLY_TEST_REQUIRE_DATABASE=1"))
        #expect(commands.filter { $0.hasPrefix("swift build") }.count == 1)
        #expect(commands.contains { $0.hasPrefix("swift test --skip-build") })
        #expect(commands.contains { $0.hasPrefix("scripts/docs.sh --symbol-graphs") })
        #expect(!commands.contains { $0.contains("dump-symbol-graph") }, "no second build for the symbol graphs")
        #expect(
            !commands.contains { $0.contains("swift test") && !$0.contains("--skip-build") },
            "swift test never builds"
        )
        // The ThreadSanitizer build: the plain build's directory and flags, so that only this
        // package's targets compile again (Package.swift reads TALLY_SANITIZE_THREAD).
        let builds = commands.filter { $0.contains("swift build") }
        #expect(
            builds.count == 2 && builds.contains { $0.hasPrefix("TALLY_SANITIZE_THREAD=1 swift build") },
            "\(builds)"
        )
        #expect(Set(builds.map { $0.replacingOccurrences(of: "TALLY_SANITIZE_THREAD=1 ", with: "") }).count == 1)
    }

    @Test("no test starts a Task in defer (fire and forget: it may outlive the test and the process)")
    func noTaskInDefer() throws {
        let root = TestDatabase.repository + "/Tests"
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        var checked = 0
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            #expect(text.firstRange(of: #/defer\s*\{\s*Task(\.detached)?\s*\{/#) == nil, "\(file)")
            checked += 1
        }
        #expect(checked > 50)
    }
}
