package import Logging
package import TallyCore
import TallyFileStore
import TallyPostgres
package import TallyReports
package import TallySchema

/// The store the dashboard reads, and every read under its time limit: a report past the limit is
/// cancelled (PostgreSQL's statement too: `PQcancel`, and `statement_timeout` on the server) and
/// answers 503, while other requests go on.
package struct DashboardStore: Sendable {
    package enum Location: Sendable {
        case file(directory: String)
        case postgres(conninfo: String?)
    }

    package let location: Location
    /// The `store:` line of reports (`file tally-data (from --data-dir)`).
    package let headline: String
    package let timeLimit: Duration
    let logger: Logger

    package init(location: Location, headline: String, timeLimit: Duration, logger: Logger) {
        self.location = location
        self.headline = headline
        self.timeLimit = timeLimit
        self.logger = logger
    }

    /// Runs `report`; `now` ends ranges that end now.
    package func run(_ report: Report, now: Timestamp = .now()) async throws -> (ReportScope, ReportResult) {
        try await limited { connection in
            if let connection {
                return try await ReportRunner.run(report, on: PostgresReportSource(connection: connection), now: now)
            }
            guard case .file(let directory) = location else { throw DashboardError.storeUnavailable }
            return try await ReportRunner.run(report, on: FileStoreReportSource(directory: directory), now: now)
        }
    }

    /// The plans against what the store saw in `window` (what `tally status` reports).
    package func status(_ window: StatusWindow, registry: SchemaRegistry) async throws -> StatusReport {
        try await limited { connection in
            let observations: StatusObservations
            if let connection {
                observations = try await PostgresStatusReader(connection: connection).observe(
                    window,
                    registry: registry
                )
            } else if case .file(let directory) = location {
                observations = try FileStoreStatusReader(directory: directory).observe(window, registry: registry)
            } else {
                throw DashboardError.storeUnavailable
            }
            return StatusReport(registry: registry, observations: observations)
        }
    }

    /// Failed events in `window`, by reason: `tally.failed_events`, or the file store's dead letters.
    package func rejects(_ window: StatusWindow) async throws -> [String: Int] {
        try await limited { connection in
            if let connection { return try await PostgresStatusReader(connection: connection).rejected(window) }
            guard case .file(let directory) = location else { throw DashboardError.storeUnavailable }
            return FileStoreStatusReader(directory: directory).rejected(window)
        }
    }

    /// `body` under the time limit, with a connection of its own for PostgreSQL (nil for the file
    /// store); store errors become 503s with a message of the dashboard's own.
    private func limited<Value: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection?) async throws -> Value
    ) async throws -> Value {
        let limit = timeLimit
        let location = self.location
        do {
            return try await withTimeLimit(limit) {
                switch location {
                case .file:
                    return try await body(nil)
                case .postgres(let conninfo):
                    let connection = try await PostgresConnection.connect(conninfo)
                    do {
                        let milliseconds = max(
                            1,
                            Int(limit.components.seconds * 1_000 + limit.components.attoseconds / 1_000_000_000_000_000)
                        )
                        try await connection.execute(
                            "SET statement_timeout = \(milliseconds); SET default_transaction_read_only = on"
                        )
                        let value = try await body(connection)
                        await connection.close()
                        return value
                    } catch {
                        await connection.close()
                        throw error
                    }
                }
            }
        } catch is TimeLimitExceeded {
            throw DashboardError.timedOut
        } catch let error as PostgresError where error.sqlState == "57014" {
            throw DashboardError.timedOut
        } catch let error as ReportError {
            throw DashboardError.badRequest(error.description)
        } catch let error as DashboardError {
            throw error
        } catch is CancellationError {
            throw DashboardError.timedOut
        } catch {
            logger.error("dashboard store read failed", metadata: ["tally.error": "\(error)"])
            throw DashboardError.storeUnavailable
        }
    }
}
