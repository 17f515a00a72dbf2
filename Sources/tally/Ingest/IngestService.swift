import ServiceLifecycle
import TallyCore
import TallyIngest
import TallyPipeline

/// Runs an ingest job as a `Service`, so that SIGTERM/SIGINT stop the reading between chunks and
/// the pipeline still delivers everything accepted before it shuts down.
final class IngestService: Service, @unchecked Sendable {
    // @unchecked: `job` and `outcome` are touched only by `run()`, then read after the group returned.
    private let job: IngestJob
    private let sources: [String]
    private(set) var outcome: Result<IngestReport, any Error>?

    init(job: IngestJob, sources: [String]) {
        self.job = job
        self.sources = sources
    }

    func run() async throws {
        do {
            outcome = .success(try await job.run(sources: sources, shouldStop: { Task.isShuttingDownGracefully }))
        } catch {
            outcome = .failure(error)
        }
    }
}
