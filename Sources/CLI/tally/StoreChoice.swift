import ArgumentParser
import Foundation
import TallyReports

extension SummaryStore {
    /// The store `--store`, `--data-dir`, `--database-url` and the environment choose (for the
    /// commands that read: summary, status, report, dashboard, doctor); contradicting options are
    /// a usage error.
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
}
