import Foundation
package import TallyDashboard
import TallyPostgres
package import TallyReports
import TallyServer

/// What `tally dashboard` opens before it listens: the store (checked there), its reader keys.
package enum DashboardSetup {
    /// Where the dashboard reads: the file store (66 when there is none) or PostgreSQL (connected
    /// once now, so that a database that is down fails the command, and named in `store`).
    package static func location(_ store: inout SummaryStore) async throws -> DashboardStore.Location {
        switch store.kind {
        case .clickhouse:
            throw CommandFailure(.usage, "tally dashboard reads the file store or PostgreSQL, not ClickHouse")
        case .file:
            guard FileManager.default.fileExists(atPath: store.directory) else {
                throw CommandFailure(
                    .noInput,
                    "no file store at \(store.directory) (run `tally ingest` first, or pass --data-dir)"
                )
            }
            return .file(directory: store.directory)
        case .postgres:
            do {
                let connection = try await PostgresConnection.connect(store.conninfo)
                store.location = try await PostgresReadiness.describe(connection)
                await connection.close()
            } catch let error as PostgresError {
                throw CommandFailure(database: error, doing: "cannot read the database")
            }
            return .postgres(conninfo: store.conninfo)
        }
    }

    /// The reader keys of the keys file at `path`; none without one.
    /// - Throws: ``CommandFailure``: 66 no such file, 65 a file that is not a keys file or holds no
    ///   reader key.
    package static func readerKeys(_ path: String?) throws -> ReaderKeys {
        guard let path else { return ReaderKeys(hashes: []) }
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure(
                .noInput,
                "the keys file \(path) does not exist (`tally keys add --keys \(path) --reader` makes it)"
            )
        }
        let readers: ReaderKeys
        do {
            readers = ReaderKeys(try WriteKeysFile.load(path))
        } catch {
            throw CommandFailure(.dataError, "cannot read the keys file \(path): \(FileErrorText.describe(error))")
        }
        if readers.isEmpty {
            throw CommandFailure(
                .dataError,
                "the keys file \(path) has no reader keys: `tally keys add --keys \(path) --source NAME --reader` makes one"
            )
        }
        return readers
    }
}
