import TallyClickHouse
import TallyPostgres
package import TallyReports

/// `tally doctor` on the store chosen: its checks, with the exit code of a database that cannot
/// be reached (the same as every other command's).
package enum DoctorRun {
    /// The report on `store`, and the code to exit with once it is printed when the database could
    /// not be reached (nil otherwise: the report's status decides). `migrations`: a directory to
    /// compare with instead of the built-in migrations.
    package static func check(
        _ store: SummaryStore,
        migrations: String?,
        clickhouse: ClickHouseNodes
    ) async throws -> (report: DoctorReport, exit: Sysexit?) {
        var chosen = store
        switch chosen.kind {
        case .clickhouse:
            let client = try clickhouse.client()
            chosen.location = client.endpoints.map(\.description).joined(separator: ", ")
            let report = DoctorReport(store: chosen.headline, checks: await ClickHouseDoctor().checks(client))
            // No node answered: the same code as every other command for a store that is down.
            let down = report.checks.allSatisfy { $0.name.hasPrefix("node ") && $0.status == .failure }
            return (report, down ? .unavailable : nil)
        case .file:
            return (
                DoctorReport(store: chosen.headline, checks: FileStoreDoctor(directory: chosen.directory).checks()), nil
            )
        case .postgres:
            let connection: PostgresConnection
            do {
                connection = try await PostgresConnection.connect(chosen.conninfo)
            } catch let error as PostgresError {
                var report = DoctorReport(store: chosen.headline)
                report.checks.append(
                    DoctorCheck(
                        "connect",
                        .failure,
                        error.message,
                        advice:
                            "check --database-url / DATABASE_URL / PG* variables, the server, pg_hba.conf and sslmode"
                    )
                )
                return (report, error.isConnectionProblem ? .unavailable : .ioError)
            }
            do {
                chosen.location = try await PostgresReadiness.describe(connection)
                let migrator = migrations.map(Migrator.init(directory:)) ?? .standard
                let checks = try await PostgresDoctor(migrator: migrator).checks(connection)
                await connection.close()
                return (DoctorReport(store: chosen.headline, checks: checks), nil)
            } catch let error as PostgresError {
                await connection.close()
                throw CommandFailure(database: error, doing: "cannot check the database")
            }
        }
    }
}
