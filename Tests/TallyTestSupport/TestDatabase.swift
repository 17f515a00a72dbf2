import Foundation
import TallyPostgres

/// A database of its own for one test, on the throwaway cluster scripts/test.sh starts
/// (`$TALLY_TEST_DATABASE_URL`). Tests skip, saying so, when there is none.
public struct TestDatabase: Sendable {
    /// The URL of this test's database.
    public let url: String
    /// Its name.
    public let name: String
    private let adminURL: String

    /// The throwaway cluster's superuser URL, or nil (and a note printed) outside scripts/test.sh.
    public static var adminURL: String? {
        guard let url = ProcessInfo.processInfo.environment["TALLY_TEST_DATABASE_URL"], !url.isEmpty else {
            print("⚠︎ skipped: no TALLY_TEST_DATABASE_URL (scripts/test.sh starts a throwaway PostgreSQL)")
            return nil
        }
        return url
    }

    /// A new, empty database; nil when there is no test cluster.
    public static func create() async throws -> TestDatabase? {
        guard let adminURL else { return nil }
        let name = "tally_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let admin = try await PostgresConnection.connect(adminURL)
        try await admin.execute("CREATE DATABASE \(name)")
        await admin.close()
        var components = URLComponents(string: adminURL)!
        components.path = "/" + name
        return TestDatabase(url: components.string!, name: String(name), adminURL: adminURL)
    }

    /// Drops the database.
    /// Leaves the database to the throwaway cluster, which scripts/test.sh deletes whole.
    ///
    /// Tests used to drop their database from a `Task` started in `defer`; one still connecting when
    /// the test process exited crashed it (libpq's TLS negotiation against OpenSSL's exit-time
    /// cleanup). Nothing is left running now; ``drop()`` remains for tests that can await it.
    public func release() {}

    /// Drops the database (await it before the test returns).
    public func drop() async {
        guard let admin = try? await PostgresConnection.connect(adminURL) else { return }
        try? await admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        await admin.close()
    }

    /// The repository root.
    public static var repository: String { ConformanceData.repositoryRoot!.path }

    /// Runs the built `tally` with `arguments`, from the repository root.
    public static func tally(_ arguments: [String], timeout: Duration = .seconds(300)) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try ChildProcess("tally", arguments: arguments).wait(timeout: timeout)
    }

    /// `count(*)` of `tally.events` at `url`.
    public static func eventCount(_ url: String) async throws -> Int {
        let connection = try await PostgresConnection.connect(url)
        let rows = try await connection.query("SELECT count(*) FROM tally.events")
        await connection.close()
        return Int(rows[0][0] ?? "") ?? -1
    }

    /// Blocks this thread (deliberately: not a suspension that other tests' blocking waits on the
    /// cooperative pool could delay) until `tally.events` at `url` has rows; returns the count.
    public static func waitForRows(_ url: String, timeout: Duration = .seconds(120)) throws -> Int {
        let poll =
            #"until n=$(psql "$1" -XAtqc 'SELECT count(*) FROM tally.events' 2>/dev/null) && [ "${n:-0}" -gt 0 ]; do sleep 0.01; done; echo "$n""#
        let result = try Script.run(["-c", poll, "poll", url], timeout: timeout)
        return Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
}
