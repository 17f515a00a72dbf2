package import TallyPipeline
import TallyReports

/// How an ingest that ran to its end exits, and the advice it prints: each case says what was
/// stored and what running the command again would do.
package struct IngestOutcome {
    package var report: IngestReport
    package var statistics: PipelineStatistics
    package var dataDirectory: String
    package var maxRejects: Int?

    package init(report: IngestReport, statistics: PipelineStatistics, dataDirectory: String, maxRejects: Int?) {
        self.report = report
        self.statistics = statistics
        self.dataDirectory = dataDirectory
        self.maxRejects = maxRejects
    }

    /// Returns for a run that succeeded; throws the failure otherwise, most serious first.
    package func check() throws {
        if report.notStored > 0 {
            let kept = statistics.deadLettered
            throw CommandFailure(
                .ioError,
                "\(Plural.count(Int(report.notStored), "event")) could not be stored; reading stopped. "
                    + (kept > 0 ? "\(kept) are kept in \(dataDirectory)/dead-letter. " : "")
                    + (statistics.lost > 0
                        ? "\(statistics.lost) could not be dead-lettered either (see the errors above). " : "")
                    + "Run the same command again once the sink is back: ids are stable, nothing is stored twice."
            )
        }
        if report.rejectLimitReached, let maxRejects, let last = report.stoppedAt {
            throw CommandFailure(
                .dataError,
                "stopped at \(last.place): \(Plural.count(report.rejectedCount, "line")) rejected, more than "
                    + "--max-rejects \(maxRejects); nothing after that line was read. "
                    + (report.accepted == 1
                        ? "The 1 event accepted before it is stored."
                        : "The \(report.accepted) events accepted before it are stored.")
                    + " Fix the rejected lines"
                    + (report.rejectsFile.map { " (all in \($0))" } ?? "")
                    + " or raise --max-rejects, then run the same command again: what is stored is not stored twice."
            )
        }
        if report.accepted == 0, report.rejectedCount > 0 {
            throw CommandFailure(
                .dataError,
                "no line was accepted (\(report.rejectedCount) rejected"
                    + (report.rejectsFile.map { "; see \($0)" } ?? "") + ")"
                    + (report.warnings.isEmpty ? "" : "; the warnings above name the likely cause")
            )
        }
        if report.interrupted {
            throw CommandFailure(
                .temporaryFailure,
                "interrupted: everything accepted is stored; run the same command again to finish (ids are stable)"
            )
        }
    }
}
