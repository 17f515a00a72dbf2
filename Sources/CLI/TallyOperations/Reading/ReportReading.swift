import Foundation
import TallyPostgres
package import TallyReports

/// `tally report` on the store `tally summary` would read: the report run where the events are,
/// failures turned into the commands' messages and exit codes.
package enum ReportReading {
    /// Runs `report` on `store` (ClickHouse through `clickhouse`): its scope, answer and the store's
    /// headline.
    package static func evaluate(
        _ report: Report,
        store: SummaryStore,
        clickhouse: ClickHouseNodes
    ) async throws -> (ReportScope, ReportResult, String) {
        var chosen = store
        let (scope, result): (ReportScope, ReportResult)
        switch chosen.kind {
        case .clickhouse:
            (scope, result) = try await clickhouse.run(report, store: &chosen)
        case .file:
            guard FileManager.default.fileExists(atPath: chosen.directory) else {
                throw CommandFailure(
                    .noInput,
                    "no file store at \(chosen.directory) (run `tally ingest` first, or pass --data-dir"
                        + (chosen.note.map { "; \($0)" } ?? "") + ")"
                )
            }
            let source = FileStoreReportSource(directory: chosen.directory)
            (scope, result) = try await running { try await ReportRunner.run(report, on: source) }
            noteMissing(report, seen: source.names.withLock { $0 })
            let problems = source.problems.withLock { $0 }
            if problems > 0 {
                Terminal.error("note: \(problems) unreadable or torn line(s) in the file store were left out")
            }
        case .postgres:
            do {
                let connection = try await PostgresConnection.connect(chosen.conninfo)
                chosen.location = try await PostgresReadiness.describe(connection)
                do {
                    let source = PostgresReportSource(connection: connection)
                    (scope, result) = try await running { try await ReportRunner.run(report, on: source) }
                    noteMissing(report, seen: source.names.withLock { $0 })
                } catch {
                    await connection.close()
                    throw error
                }
                await connection.close()
            } catch let error as PostgresError {
                throw CommandFailure(database: error, doing: "cannot read the database")
            }
        }
        return (scope, result, chosen.headline)
    }

    /// Names the report's events that the store holds none of in the range: a typo, or an event
    /// not sent yet (the report shows zeros for them).
    package static func noteMissing(_ report: Report, seen: Set<String>) {
        let missing = Set(report.selectors.flatMap(\.names)).subtracting(seen).sorted()
        for name in missing {
            Terminal.error("note: the store holds no event named \(name.debugDescription) in the range")
        }
    }

    /// A definition error as the commands say it, naming the option (`--tz`) rather than the field.
    package static func message(_ error: ReportError) -> String {
        let option = ["time_zone": "--tz", "range": "--since/--until", "window": "--window", "steps": "--step"]
        let path = option[error.path] ?? error.path
        return path.isEmpty ? error.message : "\(path): \(error.message)"
    }

    /// A definition error found while running (a cohort outside the range) is a usage error.
    private static func running<Value>(_ body: () async throws -> Value) async throws -> Value {
        do {
            return try await body()
        } catch let error as ReportError {
            throw CommandFailure(.usage, message(error))
        }
    }
}
