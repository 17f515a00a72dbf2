import Foundation
import TallyPostgres
import TallyTestSupport
import Testing

/// deploy/postgres/setup.sh against the test cluster: it runs twice without error, and the login
/// roles end up with exactly the grants deploy/postgres/README.md documents.
@Suite("deploy/postgres", .serialized)
struct PostgresSetupTests {
    /// The table in deploy/postgres/README.md, as `relation: writer privileges | reader privileges`.
    static let documentedGrants = [
        "daily_activity: - | SELECT",
        "daily_actor_sets: INSERT | SELECT",
        "daily_actors: - | SELECT",
        "daily_name_actor_sets: INSERT | SELECT",
        "event_summary: - | SELECT",
        "events: INSERT | SELECT",
        "failed_events: INSERT | SELECT",
        "feature_summary: - | SELECT",
        "identities: INSERT | SELECT",
        "rollup_hourly: SELECT,INSERT,UPDATE | SELECT",
        "schema_migrations: - | SELECT",
        "skewed_events: SELECT,INSERT | SELECT",
    ]

    @Test("setup.sh twice: no error; roles, grants and settings exactly as documented; the roles work")
    func setupIsIdempotentAndExact() async throws {
        let adminURL = try TestDatabase.adminURL
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let (database, owner, writer, reader) = ("tally_setup_\(suffix)", "o_\(suffix)", "w_\(suffix)", "r_\(suffix)")
        let passwords = NSTemporaryDirectory() + "tally-passwords-\(suffix)"
        defer { try? FileManager.default.removeItem(atPath: passwords) }
        let arguments = [
            "deploy/postgres/setup.sh", "--admin-url", adminURL, "--database", database, "--owner", owner, "--writer",
            writer, "--reader", reader,
        ]
        let environment = [
            "TALLY": ChildProcess.binaryDirectory.appendingPathComponent("tally").path,
            "TALLY_PASSWORDS_FILE": passwords,
        ]
        for run in 1...2 {
            let result = try await Script.run(arguments, environment: environment, timeout: .seconds(300))
            #expect(result.status == 0, "run \(run): \(result.stderr)")
            #expect(!result.stderr.contains("ERROR"), "run \(run): \(result.stderr)")
        }
        // Closed (awaited) after its last query, not from a Task started in `defer` that could outlive the test.
        let admin = try await PostgresConnection.connect(Self.url(adminURL, database: database))
        let grants = try await admin.query(
            """
            SELECT c.relname || ': ' || coalesce((SELECT string_agg(p, ',' ORDER BY o) FROM unnest(array['SELECT',
            'INSERT','UPDATE','DELETE','TRUNCATE','REFERENCES','TRIGGER']) WITH ORDINALITY AS x(p, o)
            WHERE has_table_privilege($1, c.oid, p)), '-') || ' | ' || coalesce((SELECT string_agg(p, ',' ORDER BY o)
            FROM unnest(array['SELECT','INSERT','UPDATE','DELETE','TRUNCATE','REFERENCES','TRIGGER'])
            WITH ORDINALITY AS x(p, o) WHERE has_table_privilege($2, c.oid, p)), '-')
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'tally' AND c.relkind IN ('r', 'p', 'v', 'm') AND NOT c.relispartition ORDER BY 1
            """,
            [writer, reader]
        )
        #expect(grants.map { $0[0] ?? "" } == Self.documentedGrants)
        let attributes = try await admin.query(
            """
            SELECT rolname, rolsuper, rolcreatedb, rolcreaterole, rolcanlogin,
                pg_has_role(rolname, 'tally_writer', 'MEMBER'), pg_has_role(rolname, 'tally_reader', 'MEMBER')
            FROM pg_roles WHERE rolname IN ($1, $2, $3) ORDER BY rolname
            """,
            [owner, writer, reader]
        )
        #expect(
            attributes.map { $0.map { $0 ?? "" } } == [
                [owner, "f", "f", "f", "t", "f", "f"], [reader, "f", "f", "f", "t", "f", "t"],
                [writer, "f", "f", "f", "t", "t", "f"],
            ]
        )
        let keyColumns = try await admin.query(
            "SELECT has_column_privilege($1, 'tally.events', 'event_id', 'SELECT'), "
                + "has_column_privilege($1, 'tally.events', 'properties', 'SELECT'), "
                + "has_function_privilege($1, 'tally.ensure_partitions(date, date)', 'EXECUTE'), "
                + "has_function_privilege($2, 'tally.ensure_partitions(date, date)', 'EXECUTE'), "
                + "has_database_privilege('public', current_database(), 'CONNECT')",
            [writer, reader]
        )
        await admin.close()
        #expect(keyColumns.first == ["t", "f", "t", "f", "f"])

        // The roles work as documented: the writer loads, the reader reports and cannot write.
        let secrets = try String(contentsOfFile: passwords, encoding: .utf8)
        func password(_ role: String) -> String {
            secrets.split(separator: "\n").first { $0.hasPrefix(role + "=") }.map {
                String($0.dropFirst(role.count + 1))
            }
                ?? ""
        }
        let data = NSTemporaryDirectory() + "tally-setup-\(suffix)"
        defer { try? FileManager.default.removeItem(atPath: data) }
        let load = try await TestDatabase.tally([
            "ingest", "Examples/sample/events.ndjson", "--registry", "Examples/registry", "--store", "postgres",
            "--database-url", Self.url(adminURL, database: database, user: writer, password: password(writer)),
            "--data-dir", data, "--quiet",
        ])
        #expect(load.status == 0, "\(load.stderr)")
        let readerURL = Self.url(adminURL, database: database, user: reader, password: password(reader))
        let summary = try await TestDatabase.tally(["summary", "--database-url", readerURL])
        #expect(summary.status == 0 && summary.stdout.contains("4000 events"), "\(summary.stdout)\(summary.stderr)")
        let asReader = try await PostgresConnection.connect(readerURL)
        await #expect(throws: PostgresError.self) { try await asReader.execute("CREATE TEMP TABLE t (id int)") }
        await asReader.close()
        let drop = try await PostgresConnection.connect(adminURL)
        try await drop.execute("DROP DATABASE \(database) WITH (FORCE)")
        try await drop.execute("DROP ROLE \(owner), \(writer), \(reader)")
        await drop.close()
    }

    static func url(_ base: String, database: String, user: String? = nil, password: String? = nil) -> String {
        var components = URLComponents(string: base)!
        components.path = "/" + database
        if let user { components.user = user }
        if let password { components.password = password }
        return components.string!
    }
}
