import Foundation
import TallyPostgres
import Testing

/// A database of its own for one test, on the throwaway cluster scripts/test.sh starts
/// (`$TALLY_TEST_DATABASE_URL`).
///
/// Without a cluster a database test can never pass by accident: under scripts/test.sh (which sets
/// `TALLY_TEST_REQUIRE_DATABASE=1`) it fails with ``MissingDatabase``; in a plain `swift test` it
/// is cancelled, which the test runner reports as skipped, with the reason.
public struct TestDatabase: Sendable {
    /// The URL of this test's database.
    public let url: String
    /// Its name.
    public let name: String
    private let adminURL: String

    /// The throwaway cluster's superuser URL. Without one, throws ``MissingDatabase`` when a
    /// database is required (scripts/test.sh), else cancels the current test (a skip, with why).
    public static var adminURL: String {
        get throws {
            let environment = ProcessInfo.processInfo.environment
            if let url = environment["TALLY_TEST_DATABASE_URL"], !url.isEmpty { return url }
            if environment["TALLY_TEST_REQUIRE_DATABASE"] == "1" { throw MissingDatabase() }
            try Test.cancel(Comment(rawValue: skipReason))
        }
    }

    private static let skipReason =
        "skipped: no TALLY_TEST_DATABASE_URL. A plain `swift test` skips the PostgreSQL tests; "
        + "scripts/test.sh starts a throwaway PostgreSQL and runs them (and fails them without one)."

    /// Thrown by a database test run by scripts/test.sh without a database: a failure, not a skip.
    public struct MissingDatabase: Error, CustomStringConvertible {
        public var description: String {
            "TALLY_TEST_REQUIRE_DATABASE=1 but TALLY_TEST_DATABASE_URL is empty: scripts/test.sh runs every "
                + "PostgreSQL test and did not hand them its throwaway cluster (did tally_pg_start fail?)"
        }
    }

    /// A new, empty database (see ``adminURL`` for what happens without a test cluster).
    public static func create() async throws -> TestDatabase {
        let adminURL = try adminURL
        let name = "tally_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let admin = try await PostgresConnection.connect(adminURL)
        try await admin.execute("CREATE DATABASE \(name)")
        await admin.close()
        var components = URLComponents(string: adminURL)!
        components.path = "/" + name
        return TestDatabase(url: components.string!, name: String(name), adminURL: adminURL)
    }

    /// Drops the database (await it before the test returns). Tests that do not call it leave their
    /// database to the throwaway cluster, which scripts/test.sh deletes whole: dropping from a `Task`
    /// started in `defer` (fire and forget) once crashed the test process at exit (libpq's TLS
    /// negotiation against OpenSSL's exit-time cleanup), so no test cleans up that way.
    public func drop() async {
        guard let admin = try? await PostgresConnection.connect(adminURL) else { return }
        try? await admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        await admin.close()
    }

    /// The repository root.
    public static var repository: String { ConformanceData.repositoryRoot!.path }

    /// Runs the built `tally` with `arguments`, from the repository root.
    public static func tally(_ arguments: [String], timeout: Duration = .seconds(300)) async throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try await ChildProcess("tally", arguments: arguments).wait(timeout: timeout)
    }

    /// `count(*)` of `tally.events` at `url`.
    public static func eventCount(_ url: String) async throws -> Int {
        let connection = try await PostgresConnection.connect(url)
        let rows = try await connection.query("SELECT count(*) FROM tally.events")
        await connection.close()
        return Int(rows[0][0] ?? "") ?? -1
    }

    /// Waits until `tally.events` at `url` has rows (psql polling on a thread of its own); returns the count.
    public static func waitForRows(_ url: String, timeout: Duration = .seconds(120)) async throws -> Int {
        let poll =
            #"until n=$(psql "$1" -XAtqc 'SELECT count(*) FROM tally.events' 2>/dev/null) && [ "${n:-0}" -gt 0 ]; do sleep 0.01; done; echo "$n""#
        let result = try await Script.run(["-c", poll, "poll", url], timeout: timeout)
        return Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
}
