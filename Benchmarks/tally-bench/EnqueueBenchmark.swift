import Synchronization
import TallyCore
import TallyPipeline

/// The pipeline's enqueue (`EventPipeline.offer`) against the simplest thing that could work:
/// appending to a `Mutex<[EventEnvelope]>`.
///
/// "Alone" is the target's figure: both take a round of events into an empty queue, nobody
/// drains during the timed loop. "Draining" repeats the pipeline side with its batcher running
/// on the other core (into a sink that does nothing), which adds the cost of handing memory
/// across cores; the baseline has no such thing, so that ratio is shown for information.
enum EnqueueBenchmark {
    struct Result {
        /// Median nanoseconds per event over the rounds.
        var pipelineAlone: Double
        var mutexArray: Double
        var pipelineDraining: Double
        var dropped: UInt64
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
    static func run(rounds: Int, perRound: Int) async throws -> Result {
        var generator = UUIDv7Generator()
        let now = Timestamp.now()
        // Distinct events, as track() makes them: no two loops share one object's reference count.
        let events = (0..<perRound).map { index in
            EventEnvelope(
                eventID: generator.next(at: now),
                name: "episode_list_episode_selected",
                feature: "episode",
                properties: EventProperties(strings: ["episode_id": "ep-\(index)", "position": "3"]),
                occurredAt: now,
                receivedAt: now
            )
        }
        var alone = Samples(capacity: rounds)
        var mutexArray = Samples(capacity: rounds)
        var draining = Samples(capacity: rounds)
        let configuration = PipelineConfiguration(maxBatchSize: 1_000, queueCapacity: perRound)

        let running = EventPipeline(sinks: [NullSink()], configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await running.run() }
            for _ in 0..<rounds {
                // Alternate the three, so that all see the same machine noise.
                let idle = EventPipeline(sinks: [], configuration: configuration)
                var start = monotonicNanoseconds()
                for event in events { idle.offer(event) }
                alone.append(perEventPicoseconds(since: start, count: perRound))

                let mutex = Mutex<[EventEnvelope]>([])
                start = monotonicNanoseconds()
                for event in events { mutex.withLock { $0.append(event) } }
                mutexArray.append(perEventPicoseconds(since: start, count: perRound))

                start = monotonicNanoseconds()
                for event in events { running.offer(event) }
                draining.append(perEventPicoseconds(since: start, count: perRound))
                await running.flush()
            }
            running.shutdown()
            try await group.waitForAll()
        }
        return Result(
            pipelineAlone: Double(alone.median) / 1_000,
            mutexArray: Double(mutexArray.median) / 1_000,
            pipelineDraining: Double(draining.median) / 1_000,
            dropped: running.statistics.dropped
        )
    }

    private static func perEventPicoseconds(since start: Int64, count: Int) -> Int64 {
        (monotonicNanoseconds() - start) * 1_000 / Int64(count)
    }
}
