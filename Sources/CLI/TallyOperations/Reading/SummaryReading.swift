import Foundation
import TallyPostgres
package import TallyReports

/// `tally summary` on the store chosen: the rollups or events read where they are, failures
/// turned into the command's messages and exit codes.
package enum SummaryReading {
    /// `query` over `store` (ClickHouse through `clickhouse`); `store` comes back naming what was
    /// read (the database as the server names it, the ClickHouse node). `exact`: PostgreSQL counts
    /// from the raw events instead of the rollups.
    package static func summarize(
        _ query: SummaryQuery,
        store: inout SummaryStore,
        exact: Bool,
        clickhouse: ClickHouseNodes
    ) async throws -> Summary {
        switch store.kind {
        case .clickhouse:
            return try await clickhouse.summarize(query, exact: exact, store: &store)
        case .postgres:
            do {
                let connection = try await PostgresConnection.connect(store.conninfo)
                store.location = try await PostgresReadiness.describe(connection)
                let summary = try await PostgresSummarizer(connection: connection).summarize(query, exact: exact)
                await connection.close()
                return summary
            } catch let error as PostgresError {
                throw CommandFailure(database: error, doing: "cannot read the database")
            }
        case .file:
            guard FileManager.default.fileExists(atPath: store.directory) else {
                throw CommandFailure(
                    .noInput,
                    "no file store at \(store.directory) (run `tally ingest` first, or pass --data-dir"
                        + (store.note.map { "; \($0)" } ?? "") + ")"
                )
            }
            do {
                return try FileStoreSummarizer(directory: store.directory).summarize(query)
            } catch {
                throw CommandFailure(.ioError, "cannot read the file store in \(store.directory): \(error)")
            }
        }
    }
}
