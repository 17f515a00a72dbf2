import Foundation
import TallyCore
package import TallyPostgres

/// `tally replay --failed-events`: the table checked, each row decided by the tracking plans as
/// they are now, failures turned into the command's messages and exit codes.
package struct ReplayFailedEvents {
    package var conninfo: String?
    package var decoder: ReplayDecoder
    package var dryRun: Bool

    package init(conninfo: String?, decoder: ReplayDecoder, dryRun: Bool) {
        self.conninfo = conninfo
        self.decoder = decoder
        self.dryRun = dryRun
    }

    package func run(shouldStop: @escaping @Sendable () -> Bool) async throws -> FailedEventsReplayer.Report {
        do {
            let connection = try await PostgresConnection.connect(conninfo)
            let found = try await connection.query(
                """
                SELECT to_regclass('tally.failed_events') IS NOT NULL,
                       EXISTS (SELECT FROM information_schema.columns
                               WHERE table_schema = 'tally' AND table_name = 'failed_events' AND column_name = 'id')
                """
            )
            await connection.close()
            guard found.first?.first == "t" else {
                throw CommandFailure(.ioError, "the database has no tally tables yet: run `tally migrate` first")
            }
            guard found.first?.last == "t" else {
                throw CommandFailure(
                    .ioError,
                    "tally.failed_events has no key column yet (sql/0011): run `tally migrate` first"
                )
            }
            let decoder = self.decoder
            let now = Timestamp.now().truncatedToMicroseconds
            return try await FailedEventsReplayer(conninfo: conninfo).run(dryRun: dryRun, shouldStop: shouldStop) {
                row in
                guard row.event != "null" else { return .keep }
                switch decoder.decode(Array(row.event.utf8), arrivedAt: row.failedAt, now: now) {
                case .valid(let events): return .replay(events)
                case .invalid(let violation):
                    return .stillFails(
                        reason: violation.code.rawValue,
                        detail: "at \(violation.path): \(violation.message)"
                    )
                }
            }
        } catch let error as PostgresError where error.sqlState == "42501" {
            throw CommandFailure(
                .ioError,
                "\(error.message)\n  replay --failed-events reads, updates and deletes rows of tally.failed_events: "
                    + "run it as the database's owner (the login tally migrate uses)"
            )
        } catch let error as PostgresError {
            throw CommandFailure(database: error, doing: "cannot replay tally.failed_events")
        }
    }
}
