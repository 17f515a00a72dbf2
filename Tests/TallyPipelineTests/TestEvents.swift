import TallyCore
import TallyPipeline

/// Envelopes whose id encodes who produced them and in which order: `high` = producer, `low` = sequence.
enum TestEvents {
    static func event(producer: Int = 0, sequence: Int, name: String = "episode_list_viewed") -> EventEnvelope {
        EventEnvelope(
            eventID: EventID(high: UInt64(producer), low: UInt64(sequence)),
            name: name,
            occurredAt: Timestamp(secondsSinceEpoch: 1_790_000_000)
        )
    }

    static func events(producer: Int = 0, count: Int) -> [EventEnvelope] {
        (0..<count).map { event(producer: producer, sequence: $0) }
    }
}

/// A test error a sink throws.
struct SinkDown: Error, CustomStringConvertible {
    var description: String { "sink is down" }
}

extension EventPipeline {
    /// Runs the pipeline in a child task for the duration of `body`, then shuts it down and waits.
    func running<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.run() }
            do {
                let result = try await body()
                shutdown()
                try await group.waitForAll()
                return result
            } catch {
                shutdown()
                try await group.waitForAll()
                throw error
            }
        }
    }
}
