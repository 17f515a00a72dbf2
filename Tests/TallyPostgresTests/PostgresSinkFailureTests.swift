import Foundation
import TallyCore
import TallyPipeline
import TallyPipelineTesting
import TallyPostgres
import TallyTestSupport
import Testing

/// The PostgreSQL sink when the server will not take a batch: a permission it lacks, a statement
/// that hangs, a query its caller gives up on.
@Suite("PostgreSQL sink failures", .serialized)
struct PostgresSinkFailureTests {
    static func events(count: Int) -> [EventEnvelope] {
        var ids = UUIDv7Generator(seed: 5)
        let time = Timestamp(rfc3339: "2026-11-20T10:00:00Z")!
        return (0..<count).map { index in
            EventEnvelope(eventID: ids.next(at: time), name: "episode_viewed_\(index % 3)", occurredAt: time)
        }
    }

    /// A migrated database and a connection holding `tally.events` locked (in an open transaction).
    static func lockedEventsTable() async throws -> (TestDatabase, PostgresConnection) {
        let database = try await TestDatabase.create()
        #expect(try await TestDatabase.tally(["migrate", "--database-url", database.url]).status == 0)
        let locker = try await PostgresConnection.connect(database.url)
        try await locker.execute("BEGIN; LOCK TABLE tally.events IN ACCESS EXCLUSIVE MODE")
        return (database, locker)
    }

    /// The server process of `connection`, as pg_stat_activity names it.
    static func backend(of connection: PostgresConnection) async throws -> String {
        try #require(try await connection.query("SELECT pg_backend_pid()").first?.first ?? nil)
    }

    /// Returns once `observer` sees the backend `pid` in `state` (`active`, `idle in transaction`),
    /// running a statement that contains `text` when given: a cancel sent after this cannot land
    /// before what it is meant to cancel.
    static func waitForBackend(
        _ pid: String,
        state: String,
        running text: String? = nil,
        observer: PostgresConnection
    ) async throws {
        try await Eventually.wait(until: "backend \(pid) \(state) \(text ?? "")") {
            let rows = try await observer.query("SELECT state, query FROM pg_stat_activity WHERE pid = $1", [pid])
            guard let row = rows.first, row[0] == state else { return false }
            return text.map { row[1]?.contains($0) == true } ?? true
        }
    }

    /// A login that may connect and make temporary tables but holds none of tally's roles.
    static func loginWithoutGrants(_ database: TestDatabase, admin: PostgresConnection) async throws -> String {
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let user = "nobody_\(suffix)"
        try await admin.execute(
            """
            CREATE ROLE \(user) LOGIN PASSWORD 'n-\(suffix)';
            GRANT CONNECT, TEMPORARY ON DATABASE \(database.name) TO \(user);
            """
        )
        var components = URLComponents(string: database.url)!
        components.user = user
        components.password = "n-\(suffix)"
        return components.string!
    }

    @Test("a permission error is dead-lettered on the first attempt, not after ten")
    func permissionDeniedIsNotRetried() async throws {
        let database = try await TestDatabase.create()
        #expect(try await TestDatabase.tally(["migrate", "--database-url", database.url]).status == 0)
        let admin = try await PostgresConnection.connect(database.url)
        let url = try await Self.loginWithoutGrants(database, admin: admin)
        await admin.close()

        let deadLetters = InMemoryRejectSink()
        let pipeline = EventPipeline(
            sinks: [PostgresSink(conninfo: url)],
            deadLetters: deadLetters,
            configuration: PipelineConfiguration(
                maxBatchSize: 100,
                retry: RetryPolicy(maxAttempts: 10, initialBackoff: .seconds(1), jitter: 0),
                // A loaded host has taken over 30 s for this write; a timeout is retried, which is
                // not what this test is about.
                sinkTimeout: .seconds(300)
            )
        )
        try await pipeline.running {
            try await pipeline.send(contentsOf: Self.events(count: 100))
            await deadLetters.waitForRejects(count: 100)
        }
        let reject = try #require(deadLetters.rejects.first)
        #expect(reject.origin == .sink(name: "postgres", attempts: 1))
        #expect(reject.reason.code == "postgres_42501", "insufficient_privilege: \(reject.reason)")
        #expect(pipeline.statistics.retries == 0, "no backoff was waited")
        #expect(pipeline.statistics.deadLettered == 100)
    }

    @Test("a write blocked on a lock past its deadline is cancelled on the server, retried, and loads once free")
    func blockedWriteIsCancelledAndRetried() async throws {
        let (database, locker) = try await Self.lockedEventsTable()

        let deadLetters = InMemoryRejectSink()
        let sink = PostgresSink(conninfo: database.url)
        let pipeline = EventPipeline(
            sinks: [sink],
            deadLetters: deadLetters,
            configuration: PipelineConfiguration(
                maxBatchSize: 100,
                retry: RetryPolicy(maxAttempts: 10, initialBackoff: .milliseconds(50), jitter: 0),
                sinkTimeout: .milliseconds(500)
            )
        )
        try await pipeline.running {
            try await pipeline.send(contentsOf: Self.events(count: 100))
            while pipeline.statistics.retries < 2 { try await Task.sleep(for: .milliseconds(20)) }
            try await locker.execute("COMMIT")
            await pipeline.flush()
        }
        #expect(await sink.inserted == 100)
        #expect(deadLetters.rejects.isEmpty)
        // The cancelled attempts left nothing behind on the server.
        let waiting = try await locker.query(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        #expect(waiting.first?.first == "0")
        #expect(try await TestDatabase.eventCount(database.url) == 100)
        await locker.close()
    }

    @Test("cancelling a query returns promptly, and the connection stays usable")
    func cancelQuery() async throws {
        let database = try await TestDatabase.create()
        let connection = try await PostgresConnection.connect(database.url)
        let observer = try await PostgresConnection.connect(database.url)
        let pid = try await Self.backend(of: connection)
        let query = Task { try await connection.query("SELECT pg_sleep(30)") }
        // The query is running on the server before the cancel is sent: a cancel that came first
        // would prove nothing.
        try await Self.waitForBackend(pid, state: "active", running: "pg_sleep(30)", observer: observer)
        let cancelled = ContinuousClock.now
        query.cancel()
        await #expect(throws: CancellationError.self) { try await query.value }
        // pg_sleep(30) would take 30 s; the margin is for a suite that keeps both cores busy.
        #expect(ContinuousClock.now - cancelled < .seconds(10))
        #expect(try await connection.query("SELECT 1") == [["1"]])
        #expect(connection.isReusable)

        // Inside a transaction: the rollback makes it usable again.
        try await connection.execute("BEGIN")
        let inTransaction = Task { try await connection.query("SELECT pg_sleep(30)") }
        try await Self.waitForBackend(pid, state: "active", running: "pg_sleep(30)", observer: observer)
        inTransaction.cancel()
        await #expect(throws: CancellationError.self) { try await inTransaction.value }
        #expect(!connection.isReusable, "the aborted transaction is seen")
        await connection.rollback()
        #expect(try await connection.query("SELECT 2") == [["2"]])
        await connection.close()
        await observer.close()
    }

    @Test("a cancel that reaches the server between a transaction's statements still cancels the next one")
    func cancelBetweenStatements() async throws {
        let (database, locker) = try await Self.lockedEventsTable()
        // Released after 20 s whatever happens, so that a cancel the server ignored fails the
        // test instead of hanging it.
        let release = Task {
            try? await Task.sleep(for: .seconds(20))
            try? await locker.execute("COMMIT")
        }
        let connection = try await PostgresConnection.connect(database.url)
        let pid = try await Self.backend(of: connection)
        let write = Task {
            try await connection.transaction { transaction in
                // Between statements: the backend is idle when the cancel comes (2 s: a loaded host polls slowly).
                usleep(2_000_000)
                try transaction.execute("SELECT count(*) FROM tally.events")  // waits on the lock
            }
        }
        // In the transaction, between its statements, when the cancel is sent.
        try await Self.waitForBackend(pid, state: "idle in transaction", observer: locker)
        let cancelled = ContinuousClock.now
        write.cancel()
        await #expect(throws: CancellationError.self) { try await write.value }
        #expect(ContinuousClock.now - cancelled < .seconds(15), "the statement after the cancel was not cancelled")
        release.cancel()
        try await locker.execute("COMMIT")
        #expect(try await connection.query("SELECT 1") == [["1"]])
        await connection.close()
        await locker.close()
    }

    @Test("connections get connect_timeout and keepalives unless the URL sets them")
    func connectionDefaults() async throws {
        let database = try await TestDatabase.create()
        let plain = try await PostgresConnection.connect(database.url)
        #expect(await plain.option("connect_timeout") == "10")
        #expect(await plain.option("keepalives") == "1")
        #expect(await plain.option("keepalives_idle") == "60")
        await plain.close()
        let own = try await PostgresConnection.connect(database.url + "?connect_timeout=3&keepalives_idle=7")
        #expect(await own.option("connect_timeout") == "3")
        #expect(await own.option("keepalives_idle") == "7")
        #expect(await own.option("keepalives") == "1")
        await own.close()
    }

    @Test("the environment's PGCONNECT_TIMEOUT and a service file are the user's choice too")
    func optionsLeaveTheEnvironmentAlone() {
        let url = "postgresql://u@h/db"
        let plain = PostgresConnection.options(url, environment: [:])
        #expect(plain.map(\.keyword) == PostgresConnection.defaultOptions.map(\.keyword) + ["dbname"])
        #expect(plain.last?.value == url)
        let timeout = PostgresConnection.options(url, environment: ["PGCONNECT_TIMEOUT": "2"])
        #expect(!timeout.map(\.keyword).contains("connect_timeout"))
        #expect(timeout.map(\.keyword).contains("keepalives"))
        #expect(PostgresConnection.options("service=tally", environment: [:]).map(\.keyword) == ["dbname"])
        #expect(PostgresConnection.options(nil, environment: [:]).count == PostgresConnection.defaultOptions.count)
    }

    @Test(
        "SQLSTATE classes: what a retry can fix, and what it cannot",
        arguments: [
            ("08006", SinkErrorClass.transient), ("40001", .transient), ("40P01", .transient), ("53100", .transient),
            ("57P01", .transient), ("57014", .transient), ("55P03", .transient), ("58030", .transient),
            ("42501", .permanent), ("42P01", .permanent), ("28P01", .permanent), ("22021", .permanent),
            ("23505", .permanent), ("3D000", .permanent), ("57P04", .permanent), ("0A000", .permanent),
        ]
    )
    func sqlStateClasses(sqlState: String, expected: SinkErrorClass) {
        #expect(PostgresError(.server, sqlState: sqlState, message: "").errorClass == expected)
    }

    @Test("without a SQLSTATE: a lost connection is transient, a refused login permanent")
    func connectionErrorClasses() {
        #expect(
            PostgresError(.connection, message: "server closed the connection unexpectedly").errorClass == .transient
        )
        #expect(
            PostgresError(
                .connection,
                message: "connection to server at \"127.0.0.1\", port 1 failed: Connection refused"
            ).errorClass == .transient
        )
        #expect(
            PostgresError(.connection, message: "FATAL:  password authentication failed for user \"x\"").errorClass
                == .permanent
        )
        #expect(
            PostgresError(.connection, message: "FATAL:  database \"nope\" does not exist").errorClass == .permanent
        )
        #expect(PostgresError(.migration, message: "edited").errorClass == .permanent)
    }
}

extension EventPipeline {
    /// Runs the pipeline for the duration of `body`, then shuts it down and waits for it.
    fileprivate func running(_ body: () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.run() }
            do {
                try await body()
            } catch {
                shutdown()
                throw error
            }
            shutdown()
            try await group.waitForAll()
        }
    }
}
