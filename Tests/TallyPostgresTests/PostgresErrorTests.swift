import TallyPostgres
import TallyTestSupport
import Testing

@Suite("PostgreSQL errors")
struct PostgresErrorTests {
    @Test("codes print as their stable names")
    func codes() {
        let codes: [(PostgresError.Code, String)] = [
            (.connection, "connection"), (.server, "server"), (.copy, "copy"), (.migration, "migration"),
            (.configuration, "configuration"),
        ]
        for (code, name) in codes { #expect(code.description == name) }
        #expect(
            PostgresError(.server, sqlState: "42501", message: "permission denied for table events").description
                == "PostgresError(server, SQLSTATE 42501): permission denied for table events"
        )
    }

    @Test("a message holding the password does not print it, nor does the server's report")
    func password() {
        let error = PostgresError(
            .connection,
            message: "connection to server failed for s3cr3t: password=s3cr3t postgresql://tally:s3cr3t@db/x",
            serverMessage: "FATAL: s3cr3t",
            secret: "s3cr3t"
        )
        #expect(!error.description.contains("s3cr3t"), "\(error)")
        #expect(!error.message.contains("s3cr3t") && error.serverMessage?.contains("s3cr3t") == false)
        // Without the secret given, URL and conninfo password fields are still scrubbed.
        let unnamed = PostgresError(.connection, message: "postgresql://tally:s3cr3t@db/x password='s3cr3t'")
        #expect(!unnamed.description.contains("s3cr3t"), "\(unnamed)")
    }

    /// Data exceptions as the server words them (SQLSTATE, message), and the message kept.
    static let dataExceptions: [(String, String, String)] = [
        (
            "22P02", #"invalid input syntax for type integer: "s3cr3t""#,
            #"invalid input syntax for type integer: "…""#
        ),
        (
            "22003", #"value "12s3cr3t" is out of range for type integer"#,
            #"value "…" is out of range for type integer"#
        ),
        (
            "22P02", #"invalid input value for enum mood: "a" s3cr3t "b""#,
            #"invalid input value for enum mood: "…""#
        ),
        (
            "22021", #"invalid byte sequence for encoding "UTF8": 0x00 0xff"#,
            #"invalid byte sequence for encoding "…": 0x…"#
        ),
    ]

    @Test(
        "a data exception's message loses the value it quotes; the server's report keeps it",
        arguments: dataExceptions
    )
    func dataException(sqlState: String, message: String, expected: String) {
        let error = PostgresError(.server, sqlState: sqlState, message: message, serverMessage: "ERROR:  " + message)
        #expect(error.message == expected)
        #expect(!error.description.contains("s3cr3t") && !error.description.contains("0x00"), "\(error)")
        #expect(error.serverMessage == "ERROR:  " + message)
    }

    @Test("errors from a real server: the description has the primary message, never the row's values")
    func realServer() async throws {
        let database = try await TestDatabase.create()
        let connection = try await PostgresConnection.connect(database.url)
        func failure(_ body: () async throws -> Void) async -> PostgresError? {
            do {
                try await body()
                return nil
            } catch {
                return error as? PostgresError
            }
        }
        let cast = await failure { try await connection.query("SELECT $1::int", ["s3cr3t"]) }
        #expect(cast?.sqlState == "22P02")
        #expect(cast?.message == #"invalid input syntax for type integer: "…""#, "\(String(describing: cast))")
        #expect(cast?.serverMessage?.contains("s3cr3t") == true)

        try await connection.execute("CREATE TABLE secrets (value text PRIMARY KEY CHECK (value <> 'x'))")
        try await connection.query("INSERT INTO secrets VALUES ($1)", ["s3cr3t"])
        let duplicate = await failure { try await connection.query("INSERT INTO secrets VALUES ($1)", ["s3cr3t"]) }
        #expect(duplicate?.sqlState == "23505")
        #expect(duplicate?.message == #"duplicate key value violates unique constraint "secrets_pkey""#)
        #expect(duplicate?.serverMessage?.contains("Key (value)=(s3cr3t) already exists") == true)
        #expect(duplicate.map { !$0.description.contains("s3cr3t") } == true)

        let missing = await failure { try await connection.query("SELECT * FROM nowhere") }
        #expect(missing?.sqlState == "42P01")
        #expect(missing?.message == #"relation "nowhere" does not exist"#)
        await connection.close()
        await database.drop()
    }
}
