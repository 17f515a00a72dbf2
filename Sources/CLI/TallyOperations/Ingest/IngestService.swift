import ServiceLifecycle
import TallyCore
package import TallyPipeline

/// Runs an ingest job as a `Service`, so that SIGTERM/SIGINT stop the reading between chunks and
/// the pipeline still delivers everything accepted before it shuts down.
package final class IngestService: Service, @unchecked Sendable {
    // @unchecked: `job` and `outcome` are touched only by `run()` (but for `job.stop()`, which may be
    // called from any thread), then read after the group returned.
    private let job: IngestJob
    private let sources: [String]
    package private(set) var outcome: Result<IngestReport, any Error>?

    private let pipeline: EventPipeline

    package init(job: IngestJob, sources: [String], pipeline: EventPipeline) {
        self.job = job
        self.sources = sources
        self.pipeline = pipeline
    }

    package func run() async throws {
        // Reading also stops once a sink gave up on a batch (retries exhausted, e.g. the database
        // stayed down): going on would only dead-letter the rest of the input.
        let pipeline = self.pipeline
        let shouldStop = { Task.isShuttingDownGracefully || pipeline.statistics.deadLettered > 0 }
        // On SIGTERM/SIGINT the group shuts this service down first: stopping the job ends a wait
        // on an idle stdin at once, and the pipeline then stores what was accepted.
        await withGracefulShutdownHandler {
            do {
                outcome = .success(try await job.run(sources: sources, shouldStop: shouldStop))
            } catch {
                outcome = .failure(error)
            }
        } onGracefulShutdown: {
            self.job.stop()
        }
    }
}
