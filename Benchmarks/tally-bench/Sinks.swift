import TallyCore
import TallyPipeline

/// Encodes every batch to NDJSON and throws the bytes away: a sink with real CPU work and no I/O.
struct EncodingSink: EventSink {
    let name = "encoding"

    func write(_ batch: [EventEnvelope]) async throws {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(batch.count * 256)
        for event in batch { event.appendNDJSON(to: &bytes) }
        if bytes.isEmpty { throw CancellationError() }  // keeps the encoding from being optimized away
    }
}

/// Takes batches and does nothing: isolates the cost of getting events into the pipeline.
struct NullSink: EventSink {
    let name = "null"

    func write(_ batch: [EventEnvelope]) async throws {}
}
