import TallyCore
import TallyPipeline
import Tracking

/// `track()` latency, id and timestamp included, while the pipeline batches, encodes and flushes.
enum TrackLatencyBenchmark {
    enum EpisodeListEvent: TrackingEventContract {
        case episodeSelected(episodeID: String, position: Int)

        var name: String { "episode_list_episode_selected" }
        var properties: [String: String] {
            switch self {
            case .episodeSelected(let episodeID, let position): ["episode_id": episodeID, "position": String(position)]
            }
        }
    }

    struct Result {
        var samples: Samples
        var timerOverhead: Int64
        var flushes: Int
        var dropped: UInt64
    }

    static func run(rounds: Int, perRound: Int) async throws -> Result {
        let pipeline = EventPipeline(
            sinks: [EncodingSink()],
            configuration: PipelineConfiguration(
                maxBatchSize: 100,
                batchInterval: .milliseconds(10),
                queueCapacity: 1_000_000,
                overflowPolicy: .dropOldest
            )
        )
        let tracker = pipeline.tracker(feature: "episode", identity: TrackerIdentity(anonymousID: "bench"))
        let event = EpisodeListEvent.episodeSelected(episodeID: "ep-42", position: 3)
        var samples = Samples(capacity: 0)
        var flushes = 0
        try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                try await pipeline.run()
                return 0
            }
            // Explicit flushes every 5 ms on top of the 10 ms interval batches.
            group.addTask {
                var count = 0
                while !pipeline.isShuttingDown {
                    try? await Task.sleep(for: .milliseconds(5))
                    await pipeline.flush()
                    count += 1
                }
                return count
            }
            // Between rounds the batcher catches up, as an app's events come in bursts.
            samples = await timeCalls(rounds: rounds, perRound: perRound, { tracker.track(event) }) {
                await pipeline.flush()
            }
            pipeline.shutdown()
            for try await count in group { flushes += count }
        }
        return Result(
            samples: samples,
            timerOverhead: timerOverhead(),
            flushes: flushes,
            dropped: pipeline.statistics.dropped
        )
    }
}
