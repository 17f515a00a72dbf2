import TallyOperations
import TallyPipeline
import TallySchema
import Testing

/// How an ingest that ran to its end exits: the most serious failure first, each with the advice
/// the command prints.
@Suite("ingest outcome")
struct IngestOutcomeTests {
    static func outcome(
        _ change: (inout IngestReport) -> Void,
        statistics: PipelineStatistics = PipelineStatistics(),
        maxRejects: Int? = nil
    ) -> IngestOutcome {
        var report = IngestReport()
        report.accepted = 10
        change(&report)
        return IngestOutcome(report: report, statistics: statistics, dataDirectory: "data", maxRejects: maxRejects)
    }

    static func failure(_ outcome: IngestOutcome) -> CommandFailure? {
        do {
            try outcome.check()
            return nil
        } catch {
            return error as? CommandFailure
        }
    }

    @Test("a run that stored what it accepted succeeds")
    func success() {
        #expect(Self.failure(Self.outcome { _ in }) == nil)
    }

    @Test("events not stored: 74, naming the dead letters, before a reject limit or an interruption")
    func notStored() throws {
        let outcome = Self.outcome(
            { report in
                report.notStored = 3
                report.interrupted = true
                report.rejectLimitReached = true
            },
            statistics: PipelineStatistics(deadLettered: 3)
        )
        let failure = try #require(Self.failure(outcome))
        #expect(failure.exitCode == .ioError)
        #expect(failure.message.contains("3 are kept in data/dead-letter"))
    }

    @Test("the reject limit passed: 65, naming the line reading stopped at")
    func rejectLimit() throws {
        let outcome = Self.outcome(
            { report in
                report.rejected = [.malformedJSON: 2]
                report.rejectLimitReached = true
                report.stoppedAt = Reject(
                    content: .nothing,
                    reason: Reject.Reason(EventViolation(.malformedJSON, path: "$", message: "not JSON")),
                    origin: .line(file: "in.ndjson", line: 7),
                    failedAt: .now()
                )
            },
            maxRejects: 1
        )
        let failure = try #require(Self.failure(outcome))
        #expect(failure.exitCode == .dataError)
        #expect(failure.message.hasPrefix("stopped at in.ndjson:7:"))
    }

    @Test("nothing accepted, something rejected: 65; interrupted: 75")
    func nothingAcceptedAndInterrupted() throws {
        let rejectedAll = Self.outcome { report in
            report.accepted = 0
            report.rejected = [.malformedJSON: 4]
        }
        #expect(try #require(Self.failure(rejectedAll)).exitCode == .dataError)
        let interrupted = Self.outcome { $0.interrupted = true }
        #expect(try #require(Self.failure(interrupted)).exitCode == .temporaryFailure)
    }
}
