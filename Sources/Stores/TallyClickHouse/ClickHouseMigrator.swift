package import Logging

/// Applies ``ClickHouseSchema/migrations`` to every node given, in turn: tables are local to each
/// node (no `ON CLUSTER`, which needs ZooKeeper), so `tally migrate --clickhouse` is given every
/// node of the cluster. Each node records what it applied in `tally.schema_migrations` with a
/// checksum; an applied migration that was edited since is refused, as on PostgreSQL.
package struct ClickHouseMigrator: Sendable {
    package let client: ClickHouseClient
    package let logger: Logger

    package init(client: ClickHouseClient, logger: Logger = Logger(label: "tally.clickhouse")) {
        self.client = client
        self.logger = logger
    }

    /// What one node applied now (versions), and its server version.
    package struct NodeOutcome: Sendable {
        package var node: String
        package var serverVersion: String
        package var applied: [Int]
    }

    /// Migrates every node; returns what each applied.
    /// - Throws: ``ClickHouseError`` (`.migration` when a node's record disagrees with this binary).
    package func migrate() async throws -> [NodeOutcome] {
        var outcomes: [NodeOutcome] = []
        for index in client.endpoints.indices {
            outcomes.append(try await migrate(node: client.node(index)))
        }
        return outcomes
    }

    private func migrate(node: ClickHouseClient) async throws -> NodeOutcome {
        let name = "\(node.endpoints[0])"
        let version = try await node.text("SELECT version()").trimmingBlanks()
        try await node.execute("CREATE DATABASE IF NOT EXISTS tally")
        try await node.execute(
            """
            CREATE TABLE IF NOT EXISTS tally.schema_migrations (
                version UInt32, name String, checksum String, applied_at DateTime DEFAULT now()
            ) ENGINE = MergeTree ORDER BY version
            """
        )
        var applied: [Int: String] = [:]
        for row in try await node.rows("SELECT version, checksum FROM tally.schema_migrations") {
            if row.count == 2, let version = Int(row[0]) { applied[version] = row[1] }
        }
        let known = Set(ClickHouseSchema.migrations.map(\.version))
        if let newer = applied.keys.filter({ !known.contains($0) }).max() {
            throw ClickHouseError(
                .migration,
                message: "\(name) holds migration \(newer), newer than this tally knows: upgrade tally"
            )
        }
        var done: [Int] = []
        for migration in ClickHouseSchema.migrations {
            if let checksum = applied[migration.version] {
                guard checksum == migration.checksum else {
                    throw ClickHouseError(
                        .migration,
                        message:
                            "\(name): migration \(migration.version) (\(migration.name)) was edited after it was applied"
                    )
                }
                continue
            }
            for statement in migration.statements { try await node.execute(statement) }
            try await node.execute(
                "INSERT INTO tally.schema_migrations (version, name, checksum) VALUES (\(migration.version), "
                    + "'\(migration.name)', '\(migration.checksum)')"
            )
            logger.debug(
                "applied ClickHouse migration",
                metadata: ["node": "\(name)", "version": "\(migration.version)"]
            )
            done.append(migration.version)
        }
        return NodeOutcome(node: name, serverVersion: version, applied: done)
    }
}

extension ClickHouseClient {
    /// A query's result as text (`TabSeparated` unless the statement names a format).
    package func text(_ sql: String, settings: [(String, String)] = []) async throws -> String {
        String(decoding: try await query(sql, settings: settings), as: UTF8.self)
    }

    /// A `TabSeparated` result as rows of unescaped fields.
    package func rows(_ sql: String, settings: [(String, String)] = []) async throws -> [[String]] {
        try await text(sql + " FORMAT TabSeparated", settings: settings).split(separator: "\n").map { line in
            line.split(separator: "\t", omittingEmptySubsequences: false).map { Self.unescape($0) }
        }
    }

    private static func unescape(_ field: Substring) -> String {
        guard field.contains("\\") else { return String(field) }
        var result = ""
        var escaped = false
        for character in field {
            if escaped {
                switch character {
                case "t": result.append("\t")
                case "n": result.append("\n")
                case "0": result.append("\0")
                default: result.append(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}
