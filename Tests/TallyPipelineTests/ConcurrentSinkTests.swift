import TallyCore
import TallyPipeline
import Testing

/// A sink that takes several batches at once (like the PostgreSQL sink) and records how many
/// writes overlapped.
final class ConcurrentSink: EventSink, @unchecked Sendable {
    let name = "concurrent"
    let maxConcurrentWrites = 3
    private let state = Locked((events: [EventEnvelope](), inFlight: 0, maxInFlight: 0, flushes: 0))

    var events: [EventEnvelope] { state.withLock { $0.events } }
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }
    var flushes: Int { state.withLock { $0.flushes } }

    func write(_ batch: [EventEnvelope]) async throws {
        state.withLock {
            $0.inFlight += 1
            $0.maxInFlight = max($0.maxInFlight, $0.inFlight)
        }
        for _ in 0..<50 { await Task.yield() }
        state.withLock {
            $0.events += batch
            $0.inFlight -= 1
        }
    }

    func flush() async throws {
        state.withLock {
            precondition($0.inFlight == 0, "flush while writes are in flight")
            $0.flushes += 1
        }
    }
}

@Suite("Sinks that take concurrent writes")
struct ConcurrentSinkTests {
    @Test("batches overlap up to the sink's limit; flush waits for all of them; every event once")
    func concurrentWrites() async throws {
        let sink = ConcurrentSink()
        let pipeline = EventPipeline(sinks: [sink], configuration: PipelineConfiguration(maxBatchSize: 10))
        try await pipeline.running {
            try await pipeline.send(contentsOf: TestEvents.events(count: 500))
            await pipeline.flush()
            #expect(sink.events.count == 500)
            try await pipeline.send(contentsOf: TestEvents.events(producer: 1, count: 300))
        }
        #expect(sink.events.count == 800)
        #expect(Set(sink.events.map(\.eventID)).count == 800)
        #expect(sink.maxInFlight > 1 && sink.maxInFlight <= 3)
        #expect(sink.flushes >= 1)
    }
}
