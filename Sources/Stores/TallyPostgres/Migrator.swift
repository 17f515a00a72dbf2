import Foundation

/// Applies the numbered SQL files of `sql/` in order, recording each version and checksum in
/// `tally.schema_migrations`; refuses to go on if an applied file was edited since.
///
/// The files are built into the binary (``init()``); ``init(directory:)`` applies a directory instead.
public struct Migrator: Sendable {
    /// One migration file.
    package struct Migration: Sendable, Hashable {
        /// `0001`.
        package var version: String
        /// `0001_events.sql`.
        package var file: String
        /// The SQL.
        package var sql: String
        /// SHA-like fingerprint of the SQL (FNV-1a 64, hex): detects edits, not attacks.
        package var checksum: String
    }

    /// The migrations directory, or nil for the migrations built into the binary.
    public let directory: String?

    /// Migrations from `directory`: a copy of `sql/` to apply instead of the built-in ones.
    public init(directory: String) {
        self.directory = directory
    }

    /// The migrations built into this binary (the package's `sql/` directory at build time), so
    /// applying them needs no files beside the binary, from any working directory.
    public init() {
        directory = nil
    }

    /// `$TALLY_SQL_DIR` when set, else the built-in migrations.
    public static var standard: Migrator {
        if let path = ProcessInfo.processInfo.environment["TALLY_SQL_DIR"], !path.isEmpty {
            return Migrator(directory: path)
        }
        return Migrator()
    }

    /// Where the migrations come from, for messages: the directory, or `built-in`.
    public var origin: String { directory ?? "built-in" }

    /// The migration files, in version order.
    package func migrations() throws -> [Migration] {
        let files: [(name: String, sql: String?)]
        if let directory {
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".sql") }
                    .sorted()
            } catch {
                throw PostgresError(.migration, message: "cannot read the migrations directory \(directory)")
            }
            files = names.map { ($0, try? String(contentsOfFile: directory + "/" + $0, encoding: .utf8)) }
        } else {
            // Only the top level: subdirectories hold other stores' migrations.
            files = Self.embeddedFiles.filter { !$0.path.contains("/") }.map { ($0.path, $0.sql) }
        }
        guard !files.isEmpty else { throw PostgresError(.migration, message: "no *.sql migrations in \(origin)") }
        return try files.map { name, sql in
            let version = String(name.prefix { $0.isNumber })
            guard !version.isEmpty else {
                throw PostgresError(.migration, message: "\(name): migration files start with a number (0001_…)")
            }
            guard let sql else { throw PostgresError(.migration, message: "\(name) cannot be read") }
            return Migration(version: version, file: name, sql: sql, checksum: Self.checksum(sql))
        }
    }

    /// What `migrate` did or would do.
    public struct Outcome: Sendable {
        /// Versions applied by this run.
        public var applied: [String] = []
        /// Versions that were already there.
        public var alreadyApplied: [String] = []
    }

    /// Applies every migration not applied yet, each in its own transaction.
    /// - Throws: ``PostgresError`` with code ``PostgresError/Code/migration`` when an applied file changed.
    public func migrate(_ connection: PostgresConnection) async throws -> Outcome {
        try await connection.execute(
            """
            CREATE SCHEMA IF NOT EXISTS tally;
            CREATE TABLE IF NOT EXISTS tally.schema_migrations (
                version text PRIMARY KEY, file text NOT NULL, checksum text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now());
            """
        )
        // One migrator at a time, across processes.
        try await connection.query("SELECT pg_advisory_lock(7426510)")
        var outcome = Outcome()
        do {
            let applied = try await appliedChecksums(connection)
            for migration in try migrations() {
                if let checksum = applied[migration.version] {
                    guard checksum == migration.checksum else {
                        throw PostgresError(
                            .migration,
                            message: "\(migration.file) was edited after it was applied: add a new migration instead"
                        )
                    }
                    outcome.alreadyApplied.append(migration.version)
                    continue
                }
                try await connection.execute("BEGIN")
                do {
                    try await connection.execute(migration.sql)
                    try await connection.query(
                        "INSERT INTO tally.schema_migrations (version, file, checksum) VALUES ($1, $2, $3)",
                        [migration.version, migration.file, migration.checksum]
                    )
                    try await connection.execute("COMMIT")
                } catch {
                    try? await connection.execute("ROLLBACK")
                    throw error
                }
                outcome.applied.append(migration.version)
            }
        } catch {
            _ = try? await connection.query("SELECT pg_advisory_unlock(7426510)")
            throw error
        }
        try await connection.query("SELECT pg_advisory_unlock(7426510)")
        return outcome
    }

    /// Versions applied so far, with their checksums.
    package func appliedChecksums(_ connection: PostgresConnection) async throws -> [String: String] {
        let exists = try await connection.query("SELECT to_regclass('tally.schema_migrations') IS NOT NULL")
        guard exists.first?.first == "t" else { return [:] }
        let rows = try await connection.query("SELECT version, checksum FROM tally.schema_migrations")
        return Dictionary(rows.compactMap { row in row[0].flatMap { version in row[1].map { (version, $0) } } }) {
            first,
            _ in first
        }
    }

    static func checksum(_ text: String) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return String(hash, radix: 16)
    }
}
