import Foundation
package import TallyClickHouse

/// `tally doctor`'s checks of a ClickHouse cluster, node by node (tables and migrations are local
/// to each node): what needs an operator fails (a node that does not answer, migrations missing,
/// edited or newer than this binary, no cluster `tally` in `remote_servers`, a shard the
/// `Distributed` tables cannot reach); what is worth a look warns (events in
/// `tally.failed_events`, partitions with many parts).
package struct ClickHouseDoctor: Sendable {
    /// Active parts in one partition past which inserts are near ClickHouse's
    /// `parts_to_delay_insert` (150 by default): merges are falling behind.
    package static let manyParts = 100

    package init() {}

    /// Runs every check on every node of `client`.
    package func checks(_ client: ClickHouseClient) async -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        var answering: [ClickHouseClient] = []
        for index in client.endpoints.indices {
            let node = client.node(index)
            let name = "\(node.endpoints[0])"
            do {
                let version = try await node.text("SELECT version()").trimmingCharacters(in: .whitespacesAndNewlines)
                checks.append(DoctorCheck("node \(name)", .ok, "ClickHouse \(version)"))
                checks.append(contentsOf: try await Self.nodeChecks(node, name: name))
                answering.append(node)
            } catch {
                checks.append(
                    DoctorCheck(
                        "node \(name)",
                        .failure,
                        Self.message(error),
                        advice: "check --clickhouse-url (every node) and that the server is up"
                    )
                )
            }
        }
        if let node = answering.first { checks.append(contentsOf: await Self.clusterChecks(node)) }
        return checks
    }

    /// Whether any check of `checks` found a node that does not answer at all.
    package static func unreachable(_ checks: [DoctorCheck]) -> Bool {
        checks.contains { $0.name.hasPrefix("node ") && $0.status == .failure }
    }

    private static func nodeChecks(_ node: ClickHouseClient, name: String) async throws -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        let hasRecord =
            try await node.text("EXISTS TABLE tally.schema_migrations").trimmingCharacters(in: .whitespacesAndNewlines)
            == "1"
        var applied: [Int: String] = [:]
        if hasRecord {
            for row in try await node.rows("SELECT version, checksum FROM tally.schema_migrations") {
                if row.count == 2, let version = Int(row[0]) { applied[version] = row[1] }
            }
        }
        let known = ClickHouseSchema.migrations
        let missing = known.filter { applied[$0.version] == nil }.map(\.version)
        let edited = known.filter { migration in applied[migration.version].map { $0 != migration.checksum } ?? false }
        let newer = applied.keys.filter { version in !known.contains { $0.version == version } }.sorted()
        var status = DoctorCheck.Status.ok
        var message = "\(known.count - missing.count) of \(known.count) applied"
        var advice = "run `tally migrate --clickhouse` with every node in --clickhouse-url"
        if !missing.isEmpty {
            status = .failure
            message += " (missing: \(missing.map(String.init).joined(separator: ", ")))"
        }
        if !edited.isEmpty {
            status = .failure
            message += "; edited after they were applied: \(edited.map { String($0.version) }.joined(separator: ", "))"
            advice = "use the tally that applied them, or add a new migration instead"
        }
        if !newer.isEmpty {
            status = .failure
            message += "; newer than this tally: \(newer.map(String.init).joined(separator: ", "))"
            advice = "upgrade tally"
        }
        checks.append(DoctorCheck("migrations on \(name)", status, message, advice: advice))
        let crowded = try await node.rows(
            """
            SELECT table, partition, count() AS parts FROM system.parts
            WHERE database = 'tally' AND active GROUP BY table, partition ORDER BY parts DESC LIMIT 1
            """
        ).first
        if let crowded, crowded.count == 3, let parts = Int(crowded[2]), parts >= manyParts {
            checks.append(
                DoctorCheck(
                    "parts on \(name)",
                    .warning,
                    "\(parts) active parts in partition \(crowded[1]) of tally.\(crowded[0])",
                    advice: "merges are falling behind the inserts: fewer, larger inserts (the collector's "
                        + "group commit sends one per round), or more disk and CPU for the node"
                )
            )
        }
        return checks
    }

    /// Checks through the `Distributed` tables: every shard answers, and what was refused.
    private static func clusterChecks(_ node: ClickHouseClient) async -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        do {
            let shards = try await node.text(
                "SELECT count(DISTINCT shard_num) FROM system.clusters WHERE cluster = '\(ClickHouseSchema.cluster)'"
            ).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let count = Int(shards), count > 0 else {
                return [
                    DoctorCheck(
                        "cluster",
                        .failure,
                        "no cluster `\(ClickHouseSchema.cluster)` in remote_servers",
                        advice: "configure remote_servers on every node (deploy/clickhouse has an example)"
                    )
                ]
            }
            let events = try await node.text("SELECT count() FROM tally.events").trimmingCharacters(
                in: .whitespacesAndNewlines
            )
            checks.append(
                DoctorCheck(
                    "cluster",
                    .ok,
                    "\(count) shard\(count == 1 ? "" : "s"), \(events) event rows (copies until merged)"
                )
            )
        } catch {
            return [
                DoctorCheck(
                    "cluster",
                    .failure,
                    message(error),
                    advice:
                        "a shard does not answer or lacks tally's tables: start it, then `tally migrate --clickhouse`"
                )
            ]
        }
        do {
            let counts = try await node.rows(
                "SELECT count(), countIf(failed_at > now() - 86400) FROM tally.failed_events"
            ).first
            let total = Int(counts?.first ?? "0") ?? 0
            let recent = Int(counts?.last ?? "0") ?? 0
            guard total > 0 else {
                checks.append(DoctorCheck("failed events", .ok, "none"))
                return checks
            }
            let newest = try await node.rows(
                """
                SELECT toString(failed_at, 'UTC'), reason, replaceAll(substring(detail, 1, 200), '\\n', ' ')
                FROM tally.failed_events
                ORDER BY failed_at DESC LIMIT 1
                """
            ).first
            let detail = newest.map { row in row.count == 3 ? "\(row[0])Z: \(row[1]) (\(row[2]))" : "?" } ?? "?"
            checks.append(
                DoctorCheck(
                    "failed events",
                    .warning,
                    "\(recent) in the last 24 h, \(total) in all; newest \(detail)",
                    advice: "fix the plan, the sender or the table the reason names; the events are in "
                        + "tally.failed_events (column `event`) to ingest again"
                )
            )
        } catch {
            checks.append(
                DoctorCheck("failed events", .failure, message(error), advice: "run `tally migrate --clickhouse`")
            )
        }
        return checks
    }

    private static func message(_ error: any Error) -> String {
        (error as? ClickHouseError)?.message ?? "\(error)"
    }
}
