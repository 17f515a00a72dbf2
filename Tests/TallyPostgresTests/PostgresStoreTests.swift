import Foundation
import TallyCore
import TallyPostgres
import TallyTestSupport
import Testing

/// The PostgreSQL store against a real server: migrations, exact loads, rollups, summaries,
/// hostile data and secrets.
@Suite("PostgreSQL store", .serialized)
struct PostgresStoreTests {
    static func count(_ connection: PostgresConnection, _ sql: String) async throws -> [String: Int] {
        let rows = try await connection.query(sql)
        return Dictionary(rows.map { ($0[0] ?? "", Int($0[1] ?? "0") ?? 0) }) { first, _ in first }
    }

    @Test("sample ingest: count(*) == accepted, a re-run changes nothing, rollups and summary match GROUP BY")
    func sampleIngestIsExact() async throws {
        let database = try await TestDatabase.create()
        let migrate = try await TestDatabase.tally(["migrate", "--database-url", database.url])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let data = NSTemporaryDirectory() + "tally-pg-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: data) }
        let arguments = [
            "ingest", "Examples/sample/events.ndjson", "--registry", "Examples/registry", "--store", "postgres",
            "--database-url", database.url, "--data-dir", data, "--report", "json", "--quiet",
        ]
        let first = try await TestDatabase.tally(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as! [String: Any]
        let accepted = report["accepted"] as! Int

        let connection = try await PostgresConnection.connect(database.url)
        let total = try await connection.query("SELECT count(*) FROM tally.events")
        #expect(Int(total[0][0] ?? "") == accepted)

        let second = try await TestDatabase.tally(arguments)
        #expect(second.status == 0)
        let again = try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as! [String: Any]
        #expect(again["postgres_inserted"] as? Int == 0)
        #expect(again["duplicates_skipped"] as? Int == accepted)
        #expect(Int(try await connection.query("SELECT count(*) FROM tally.events")[0][0] ?? "") == accepted)

        let byFeature = try await Self.count(connection, "SELECT feature, count(*) FROM tally.events GROUP BY 1")
        let rollups = try await Self.count(
            connection,
            "SELECT feature, sum(events) FROM tally.rollup_hourly GROUP BY 1"
        )
        #expect(byFeature == rollups)
        let users = try await Self.count(
            connection,
            "SELECT feature, count(DISTINCT coalesce(user_id, anonymous_id)) FROM tally.events GROUP BY 1"
        )
        for exact in [false, true] {
            let summary = try await TestDatabase.tally(
                ["summary", "--by", "feature", "--format", "json", "--database-url", database.url]
                    + (exact ? ["--exact"] : [])
            )
            #expect(summary.status == 0, "\(summary.stderr)")
            let rows =
                (try JSONSerialization.jsonObject(with: Data(summary.stdout.utf8)) as! [String: Any])["rows"]
                as! [[String: Any]]
            #expect(
                Dictionary(uniqueKeysWithValues: rows.map { ($0["feature"] as! String, $0["events"] as! Int) })
                    == byFeature
            )
            #expect(
                Dictionary(uniqueKeysWithValues: rows.map { ($0["feature"] as! String, $0["unique_users"] as! Int) })
                    == users
            )
        }
        // The same summary as the file store's.
        let fileIngest = try await TestDatabase.tally([
            "ingest", "Examples/sample/events.ndjson", "--registry", "Examples/registry", "--data-dir", data, "--quiet",
        ])
        #expect(fileIngest.status == 0)
        let fromFiles = try await TestDatabase.tally([
            "summary", "--by", "feature", "--format", "csv", "--data-dir", data,
        ])
        let fromDatabase = try await TestDatabase.tally([
            "summary", "--by", "feature", "--format", "csv", "--database-url", database.url,
        ])
        #expect(fromFiles.stdout == fromDatabase.stdout)
        await connection.close()
    }

    @Test(
        "hostile identifiers round-trip byte-exact; a NUL byte lands in failed_events, its batch loads; no other table changes"
    )
    func hostileData() async throws {
        let database = try await TestDatabase.create()
        let jitsu = try ConformanceData.require("jitsu-bulker-ndjson")
        let rows = try String(contentsOf: jitsu.appendingPathComponent("sql/identifiers.ndjson"), encoding: .utf8)
        #expect(try await TestDatabase.tally(["migrate", "--database-url", database.url]).status == 0)
        let connection = try await PostgresConnection.connect(database.url)
        try await connection.execute("CREATE TABLE public.bystander (id int); INSERT INTO public.bystander VALUES (1)")
        let tablesBefore = try await connection.query(
            "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog','information_schema')"
        )

        let input = NSTemporaryDirectory() + "tally-hostile-\(UUID().uuidString).ndjson"
        defer { try? FileManager.default.removeItem(atPath: input) }
        var lines = rows.split(separator: "\n").map {
            #"{"name":"jitsu_row_loaded","feature":"jitsu","occurred_at":"2026-11-22T10:00:00Z","properties":"# + $0
                + "}"
        }
        lines.append(
            #"{"name":"jitsu_row_loaded","feature":"jitsu","occurred_at":"2026-11-22T10:00:01Z","properties":{"nul":"a\u0000b"}}"#
        )
        lines.append(
            #"{"name":"jitsu_row_loaded","feature":"jitsu","occurred_at":"2026-11-22T10:00:02Z","properties":{"esc":"back\\slash\ttab\nnew \"q\" é😀"}}"#
        )
        try lines.joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let result = try await TestDatabase.tally([
            "ingest", input, "--store", "postgres", "--database-url", database.url, "--report", "json", "--quiet",
            "--data-dir", NSTemporaryDirectory() + "tally-h",
        ])
        #expect(result.status == 0, "\(result.stderr)")

        let stored = try await connection.query(
            "SELECT properties::text FROM tally.events WHERE occurred_at = '2026-11-22T10:00:00Z'"
        )
        #expect(stored.count == rows.split(separator: "\n").count)
        let original = try JSONParser.parse(String(rows.split(separator: "\n")[0]))
        let roundTripped = try JSONParser.parse(stored[0][0] ?? "")
        let originalMembers = Dictionary(original.objectMembers!.map { ($0.key, $0.value) }) { first, _ in first }
        let storedMembers = Dictionary(roundTripped.objectMembers!.map { ($0.key, $0.value) }) { first, _ in first }
        #expect(Set(originalMembers.keys) == Set(storedMembers.keys))
        for (key, value) in originalMembers {
            // Byte-exact keys and string values; numbers by value (jsonb normalizes their text).
            if case .string(let text) = value { #expect(storedMembers[key] == .string(text), "\(key)") }
        }
        let escapes = try await connection.query(
            "SELECT properties->>'esc' FROM tally.events WHERE occurred_at = '2026-11-22T10:00:02Z'"
        )
        #expect(escapes.first?.first == "back\\slash\ttab\nnew \"q\" é😀")
        let failed = try await connection.query("SELECT reason FROM tally.failed_events")
        #expect(failed.map { $0[0] ?? "" } == ["postgres_22P05"])
        let tablesAfter = try await connection.query(
            "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog','information_schema')"
        )
        let bystander = try await connection.query("SELECT count(*) FROM public.bystander")
        #expect(bystander[0][0] == "1")
        // Only tally's own partitions appear.
        let newTables = try await connection.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        #expect(newTables.map { $0[0] ?? "" } == ["bystander"])
        #expect(Int(tablesAfter[0][0] ?? "0")! >= Int(tablesBefore[0][0] ?? "0")!)
        await connection.close()
    }

    @Test("user ids that differ only in Unicode normalization are two users, in every summary")
    func usersAreCountedByteExact() async throws {
        let database = try await TestDatabase.create()
        #expect(try await TestDatabase.tally(["migrate", "--database-url", database.url]).status == 0)
        let data = NSTemporaryDirectory() + "tally-pg-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: data) }
        // "José" precomposed and decomposed: equal as Swift Strings, two different ids to PostgreSQL.
        let input = data + ".ndjson"
        defer { try? FileManager.default.removeItem(atPath: input) }
        try [
            #"{"name":"a_viewed","feature":"a","occurred_at":"2026-11-22T10:00:00Z","user_id":"Jos\u00e9"}"#,
            #"{"name":"a_viewed","feature":"a","occurred_at":"2026-11-22T10:00:01Z","user_id":"Jose\u0301"}"#,
        ].joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
        for sink in ["postgres", "file"] {
            let ingest = try await TestDatabase.tally([
                "ingest", input, "--store", sink, "--database-url", database.url, "--data-dir", data, "--quiet",
            ])
            #expect(ingest.status == 0, "\(ingest.stderr)")
        }
        for source in [
            ["--database-url", database.url], ["--database-url", database.url, "--exact"], ["--data-dir", data],
        ] {
            let summary = try await TestDatabase.tally(["summary", "--by", "feature", "--format", "csv"] + source)
            #expect(
                summary.stdout.split(separator: "\n").last?.split(separator: ",").dropFirst(2).first == "2",
                "\(source)"
            )
        }
    }

    @Test("an applied migration that was edited is refused")
    func editedMigration() async throws {
        let database = try await TestDatabase.create()
        let directory = NSTemporaryDirectory() + "tally-sql-" + UUID().uuidString
        try FileManager.default.copyItem(atPath: TestDatabase.repository + "/sql", toPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(
            try await TestDatabase.tally(["migrate", "--database-url", database.url, "--migrations", directory]).status
                == 0
        )
        let file = directory + "/0001_events.sql"
        try (try String(contentsOfFile: file, encoding: .utf8) + "\n-- edited\n").write(
            toFile: file,
            atomically: true,
            encoding: .utf8
        )
        let result = try await TestDatabase.tally([
            "migrate", "--database-url", database.url, "--migrations", directory,
        ])
        #expect(result.status == 65, "an edited migration is a data error")
        #expect(result.stderr.contains("0001_events.sql was edited after it was applied"))
    }

    @Test("a wrong password: the error says so and never prints the password")
    func passwordNeverShown() async throws {
        let adminURL = try TestDatabase.adminURL
        var components = URLComponents(string: adminURL)!
        components.password = "s3cret-Hunter2-\(UUID().uuidString.prefix(6))"
        let secret = components.password!
        for command in [
            ["migrate"], ["summary"], ["ingest", "Examples/sample/events.ndjson", "--store", "postgres", "--quiet"],
        ] {
            let result = try await TestDatabase.tally(command + ["--database-url", components.string!])
            #expect(result.status != 0, "\(command)")
            #expect(
                result.stderr.contains("password authentication failed") || result.stdout.contains("NOT stored"),
                "\(command): \(result.stderr)"
            )
            #expect(!result.stderr.contains(secret) && !result.stdout.contains(secret), "\(command)")
        }
        let scrubbed = PostgresError(
            .connection,
            message: "postgresql://u:\(secret)@h/db password=\(secret)",
            secret: nil
        )
        #expect(!scrubbed.description.contains(secret))
    }
}

@Suite("PostgreSQL roles", .serialized)
struct PostgresRoleTests {
    @Test("the writer loads but cannot delete, truncate, alter or read payloads; the reader cannot write")
    func leastPrivilege() async throws {
        let database = try await TestDatabase.create()
        #expect(try await TestDatabase.tally(["migrate", "--database-url", database.url]).status == 0)
        let admin = try await PostgresConnection.connect(database.url)
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let writer = "writer_\(suffix)"
        let reader = "reader_\(suffix)"
        try await admin.execute(
            """
            CREATE ROLE \(writer) LOGIN PASSWORD 'w-\(suffix)' IN ROLE tally_writer;
            CREATE ROLE \(reader) LOGIN PASSWORD 'r-\(suffix)' IN ROLE tally_reader;
            GRANT CONNECT, TEMPORARY ON DATABASE \(database.name) TO \(writer), \(reader);
            """
        )
        func url(_ user: String, _ password: String) async -> String {
            var components = URLComponents(string: database.url)!
            components.user = user
            components.password = password
            return components.string!
        }
        let data = NSTemporaryDirectory() + "tally-roles-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: data) }
        let load = try await TestDatabase.tally([
            "ingest", "Examples/sample/events.ndjson", "--registry", "Examples/registry", "--store", "postgres",
            "--database-url", url(writer, "w-\(suffix)"), "--data-dir", data, "--quiet",
        ])
        #expect(load.status == 0, "\(load.stderr)")
        // A re-run as the writer takes the conflict path (staging table, RETURNING the key).
        let rerun = try await TestDatabase.tally([
            "ingest", "Examples/sample/events.ndjson", "--registry", "Examples/registry", "--store", "postgres",
            "--database-url", url(writer, "w-\(suffix)"), "--data-dir", data, "--quiet", "--report", "json",
        ])
        #expect(rerun.status == 0 && rerun.stdout.contains(#""postgres_inserted":0"#), "\(rerun.stderr)")
        let asWriter = try await PostgresConnection.connect(url(writer, "w-\(suffix)"))
        for statement in [
            "DELETE FROM tally.events", "TRUNCATE tally.events", "ALTER TABLE tally.events ADD COLUMN x int",
            "DROP TABLE tally.failed_events", "UPDATE tally.events SET name = 'x'",
        ] {
            await #expect(throws: PostgresError.self, "\(statement)") { try await asWriter.execute(statement) }
        }
        // Nor read what it loaded: payloads, users, the dead-letter table.
        for statement in [
            "SELECT properties FROM tally.events", "SELECT user_id FROM tally.events",
            "SELECT * FROM tally.failed_events",
            "SELECT * FROM tally.daily_actors", "SELECT * FROM tally.daily_actor_sets",
            "CREATE TABLE tally.extra (id int)",
        ] {
            await #expect(throws: PostgresError.self, "\(statement)") { try await asWriter.query(statement) }
        }
        let asReader = try await PostgresConnection.connect(url(reader, "r-\(suffix)"))
        let count = try await asReader.query("SELECT count(*) FROM tally.events")
        #expect(Int(count[0][0] ?? "0")! > 0)
        for statement in [
            "INSERT INTO tally.failed_events (reason, event) VALUES ('x', 'y')", "DELETE FROM tally.events",
            "UPDATE tally.rollup_hourly SET events = 0", "TRUNCATE tally.rollup_hourly",
            "CREATE TABLE tally.extra (id int)", "SELECT tally.ensure_partitions('2030-01-01', '2030-02-01')",
        ] {
            await #expect(throws: PostgresError.self, "\(statement)") { try await asReader.execute(statement) }
        }
        await asWriter.close()
        await asReader.close()
        await admin.close()
    }
}

@Suite("tally doctor")
struct DoctorTests {
    @Test("before migrate it fails with advice; after, every check passes")
    func doctor() async throws {
        let database = try await TestDatabase.create()
        let before = try await TestDatabase.tally(["doctor", "--database-url", database.url])
        #expect(before.status == 1)
        let migrations = try FileManager.default.contentsOfDirectory(atPath: TestDatabase.repository + "/sql")
            .filter { $0.hasSuffix(".sql") }.count
        #expect(before.stdout.contains("FAIL  migrations: 0 of \(migrations) applied"))
        #expect(before.stdout.contains("run `tally migrate`"))
        #expect(try await TestDatabase.tally(["migrate", "--database-url", database.url]).status == 0)
        let after = try await TestDatabase.tally(["doctor", "--database-url", database.url])
        #expect(after.status == 0, "\(after.stdout)")
        #expect(!after.stdout.contains("FAIL"))
        let unreachable = try await TestDatabase.tally([
            "doctor", "--database-url", "postgresql://nobody:pw@127.0.0.1:1/x",
        ])
        #expect(unreachable.status == 69, "a database that is down is 69 in every command")
        #expect(unreachable.stdout.contains("FAIL  connect"))
    }

    @Test("an installed binary migrates and checks from any directory: the migrations are built in")
    func installedBinaryCarriesItsMigrations() async throws {
        let database = try await TestDatabase.create()
        let prefix = NSTemporaryDirectory() + "tally-install-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: ChildProcess.binaryDirectory.appendingPathComponent("tally").path,
            toPath: prefix + "/bin/tally"
        )
        func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await ChildProcess(
                prefix + "/bin/tally",
                arguments: arguments,
                environment: ["TALLY_SQL_DIR": ""],
                directory: prefix
            ).wait(timeout: .seconds(120))
        }
        let migrate = try await run(["migrate", "--database-url", database.url])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: TestDatabase.repository + "/sql")
            .filter { $0.hasSuffix(".sql") }
        #expect(migrate.stdout.contains("applied 0001"), "\(migrate.stdout)")
        let doctor = try await run(["doctor", "--database-url", database.url])
        #expect(doctor.status == 0, "\(doctor.stdout)")
        #expect(doctor.stdout.contains("ok    migrations: \(files.count) of \(files.count) applied"))
        // The files the repository holds are the ones built in: a directory copy checks the same.
        let same = try await run([
            "doctor", "--database-url", database.url, "--migrations", TestDatabase.repository + "/sql",
        ])
        #expect(same.status == 0, "\(same.stdout)")
    }

    @Test("refused events warn with counts and the newest reason; only --strict fails on them")
    func failedEventsWarn() async throws {
        let database = try await TestDatabase.create()
        #expect(try await TestDatabase.tally(["migrate", "--database-url", database.url]).status == 0)
        let admin = try await PostgresConnection.connect(database.url)
        for index in 0..<4 {
            try await admin.query(
                "INSERT INTO tally.failed_events (reason, detail, event) VALUES ($1, $2, '{}')",
                [index == 3 ? "unknown_property" : "unknown_event", "line \(index + 1)"]
            )
        }
        try await admin.query(
            "INSERT INTO tally.failed_events (failed_at, reason, event) VALUES (now() - interval '3 days', 'old', '{}')"
        )
        await admin.close()
        let doctor = try await TestDatabase.tally(["doctor", "--database-url", database.url])
        #expect(doctor.status == 0, "refused events are no reason to page anyone: \(doctor.stdout)")
        #expect(doctor.stdout.contains("warn  failed events: 4 in the last 24 h, 5 in all"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("unknown_property (line 4)"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("0 failed, 1 warning"), "\(doctor.stdout)")
        let strict = try await TestDatabase.tally(["doctor", "--database-url", database.url, "--strict"])
        #expect(strict.status == 1)
        let json = try await TestDatabase.tally(["doctor", "--database-url", database.url, "--format", "json"])
        let report = try JSONParser.parse(json.stdout)
        #expect(report["status"]?.stringValue == "warn")
        guard case .array(let checks)? = report["checks"] else {
            Issue.record("no checks in \(json.stdout)")
            return
        }
        #expect(checks.contains { $0["name"]?.stringValue == "failed events" })
    }
}
