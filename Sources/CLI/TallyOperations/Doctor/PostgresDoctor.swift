package import TallyCore
package import TallyPostgres

/// `tally doctor`'s checks of PostgreSQL: what needs an operator fails (migrations missing or
/// edited, roles missing); what is worth a look warns (refused events in `tally.failed_events`,
/// partitions for months far ahead).
package struct PostgresDoctor: Sendable {
    /// The migrations the database should have.
    package let migrator: Migrator

    package init(migrator: Migrator) {
        self.migrator = migrator
    }

    /// Runs every check on `connection`; `now` decides which months are far ahead.
    package func checks(_ connection: PostgresConnection, now: Timestamp = .now()) async throws -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        let version = try await connection.query("SHOW server_version")
        checks.append(DoctorCheck("connected", .ok, "PostgreSQL \(version.first?.first.flatMap { $0 } ?? "?")"))
        checks.append(contentsOf: try await migrations(connection))
        let roles = try await connection.query(
            "SELECT rolname FROM pg_roles WHERE rolname IN ('tally_writer', 'tally_reader') ORDER BY 1"
        ).compactMap { $0.first ?? nil }
        checks.append(
            DoctorCheck(
                "roles",
                roles.count == 2 ? .ok : .failure,
                roles.isEmpty ? "tally_writer and tally_reader missing" : roles.joined(separator: ", "),
                advice: "run `tally migrate` as a role that may create roles"
            )
        )
        checks.append(contentsOf: try await partitions(connection, now: now))
        if let failed = try await failedEvents(connection) { checks.append(failed) }
        return checks
    }

    private func migrations(_ connection: PostgresConnection) async throws -> [DoctorCheck] {
        let files: [Migrator.Migration]
        do {
            files = try migrator.migrations()
        } catch let error as PostgresError {
            return [
                DoctorCheck(
                    "migrations",
                    .failure,
                    error.message,
                    advice: "pass --migrations DIR, or none for the built-in ones"
                )
            ]
        }
        let applied = try await migrator.appliedChecksums(connection)
        let missing = files.filter { applied[$0.version] == nil }.map(\.file)
        let edited = files.filter { file in applied[file.version].map { $0 != file.checksum } ?? false }.map(\.file)
        var checks = [
            DoctorCheck(
                "migrations",
                missing.isEmpty ? .ok : .failure,
                "\(files.count - missing.count) of \(files.count) applied",
                advice: "run `tally migrate` (missing: \(missing.joined(separator: ", ")))"
            )
        ]
        if !edited.isEmpty {
            checks.append(
                DoctorCheck(
                    "migrations edited after they were applied",
                    .failure,
                    edited.joined(separator: ", "),
                    advice: "restore the files and add a new migration instead"
                )
            )
        }
        return checks
    }

    private func partitions(_ connection: PostgresConnection, now: Timestamp) async throws -> [DoctorCheck] {
        let names = try await connection.query(
            """
            SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = to_regclass('tally.events') ORDER BY 1
            """
        ).compactMap { $0.first ?? nil }
        var checks = [
            DoctorCheck(
                "partitions of tally.events",
                .ok,
                "\(names.count) (monthly, created on demand"
                    + (names.last.map { "; latest \($0))" } ?? "; none yet: the first ingest creates them)")
            )
        ]
        // events_YYYY_MM more than a month after this one: events from devices with wrong clocks,
        // stored before the clock-skew guard.
        let today = now.utcDate
        let limit = today.year * 12 + today.month + 1
        let ahead = names.filter { name in
            let parts = name.split(separator: "_")
            guard parts.count == 3, let year = Int64(parts[1]), let month = Int64(parts[2]) else { return false }
            return year * 12 + month > limit
        }
        if !ahead.isEmpty {
            checks.append(
                DoctorCheck(
                    "future partitions",
                    .warning,
                    "\(ahead.count) for months after next: " + ahead.prefix(3).joined(separator: ", "),
                    advice: "events stored before the clock-skew guard; their devices' clocks were wrong"
                )
            )
        }
        return checks
    }

    /// Refused events: a warning with the counts and the newest reason (each is a data problem of
    /// one event, kept for a replay; none stops the store).
    private func failedEvents(_ connection: PostgresConnection) async throws -> DoctorCheck? {
        let exists = try await connection.query("SELECT to_regclass('tally.failed_events') IS NOT NULL")
        guard exists.first?.first == "t" else { return nil }
        let counts = try await connection.query(
            "SELECT count(*), count(*) FILTER (WHERE failed_at > now() - interval '24 hours') FROM tally.failed_events"
        )
        let total = Int(counts.first?[0].flatMap { $0 } ?? "0") ?? 0
        let recent = Int(counts.first?[1].flatMap { $0 } ?? "0") ?? 0
        guard total > 0 else { return DoctorCheck("failed events", .ok, "none") }
        let newest = try await connection.query(
            """
            SELECT to_char(failed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), reason, left(detail, 200)
            FROM tally.failed_events ORDER BY failed_at DESC LIMIT 1
            """
        ).first
        let when = newest?[0].flatMap { $0 } ?? "?"
        let reason = newest?[1].flatMap { $0 } ?? "?"
        let detail = newest?[2].flatMap { $0 }.map { " (\($0))" } ?? ""
        return DoctorCheck(
            "failed events",
            .warning,
            "\(recent) in the last 24 h, \(total) in all; newest \(when): \(reason)\(detail)",
            advice: "`tally status` lists them by reason; fix the plan or the sender, then "
                + "`tally replay --failed-events` (as the owner)"
        )
    }
}
