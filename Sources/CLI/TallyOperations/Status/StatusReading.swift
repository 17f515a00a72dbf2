import Foundation
import TallyPostgres
package import TallyReports
package import TallySchema

/// `tally status` on the store chosen: what it holds of the window, read where it is, failures
/// turned into the command's messages and exit codes.
package enum StatusReading {
    /// The observations of `window` in `store`, for the plans of `registry`.
    package static func observe(
        _ window: StatusWindow,
        registry: SchemaRegistry,
        store: SummaryStore
    ) async throws -> StatusObservations {
        switch store.kind {
        case .clickhouse:
            throw CommandFailure(.usage, "tally status reads the file store or PostgreSQL, not ClickHouse")
        case .postgres:
            do {
                let connection = try await PostgresConnection.connect(store.conninfo)
                let observations = try await PostgresStatusReader(connection: connection).observe(
                    window,
                    registry: registry
                )
                await connection.close()
                return observations
            } catch let error as PostgresError {
                throw CommandFailure(database: error, doing: "cannot read the database")
            }
        case .file:
            guard FileManager.default.fileExists(atPath: store.directory) else {
                throw CommandFailure(
                    .noInput,
                    "no file store at \(store.directory) (run `tally ingest` first, or pass --data-dir)"
                )
            }
            do {
                return try FileStoreStatusReader(directory: store.directory).observe(window, registry: registry)
            } catch {
                throw CommandFailure(.ioError, "cannot read the file store in \(store.directory): \(error)")
            }
        }
    }
}
