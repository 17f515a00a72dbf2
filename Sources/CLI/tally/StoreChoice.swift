import ArgumentParser
import Foundation
import TallyPostgres
import TallyReports

extension SummaryStore {
    /// The store `--store`, `--data-dir`, `--database-url` and the environment choose (for
    /// `tally summary` and `tally status` alike); contradicting options are a usage error.
    static func chosen(
        _ kind: Kind?,
        dataDirectory: DataDirectoryOption,
        database: DatabaseOption
    ) throws -> SummaryStore {
        do {
            return try SummaryStore.choose(
                store: kind,
                dataDirectory: dataDirectory.dataDir,
                databaseURL: database.databaseURL,
                environment: ProcessInfo.processInfo.environment
            )
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The database as the server names it: never the URL, which may hold a password.
    static func describe(_ connection: PostgresConnection) async throws -> String {
        let rows = try await connection.query(
            "SELECT current_database(), host(inet_server_addr()), current_setting('port')"
        )
        let row = rows.first ?? []
        let name = row.first.flatMap { $0 } ?? "?"
        let port = row.count > 2 ? row[2] ?? "" : ""
        if row.count > 1, let host = row[1] { return "database \(name) on \(host):\(port)" }
        return "database \(name) (local socket, port \(port))"
    }
}
