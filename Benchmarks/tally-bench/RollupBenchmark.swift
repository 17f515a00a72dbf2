import TallyCore
import TallyOperations
import TallyPostgres

/// The client's share of rollup upkeep in the PostgreSQL sink: aggregating a batch's hourly
/// rollup rows and new per-day actors (and writing them as the statement's array parameters),
/// against encoding the same batch's rows for COPY, which every load does anyway. Batches of
/// 5,000 events of the sample data, as `tally ingest` sends them; the known-actor set carries
/// over between batches as in the sink. With 500 users most events repeat a user-day of their batch;
/// with 100,000 nearly every event is a new one (the costliest case for the per-day user sets).
enum RollupBenchmark {
    struct Result {
        /// Median nanoseconds per event.
        var encode: Double
        var rollups: Double
    }

    static func run(events count: Int, users: Int, rounds: Int) throws -> Result {
        let decoder = EnvelopeDecoder()
        var events: [EventEnvelope] = []
        events.reserveCapacity(count)
        try SampleGenerator(events: count, users: users).generate { line in
            try line.withUnsafeBufferPointer {
                events.append(try decoder.decode($0, fallbackID: EventID(high: 0, low: 0)))
            }
        }
        var encode = Samples(capacity: rounds)
        var rollups = Samples(capacity: rounds)
        var bytes: [UInt8] = []
        var rows: [RollupBatch.Row] = []
        for _ in 0..<rounds {
            var known = ActorSet(capacity: PostgresSink.knownActorLimit)
            var encodeTime: Int64 = 0
            var rollupTime: Int64 = 0
            var parameterBytes = 0
            for start in stride(from: 0, to: events.count, by: 5_000) {
                let batch = events[start..<min(start + 5_000, events.count)]
                bytes.removeAll(keepingCapacity: true)
                rows.removeAll(keepingCapacity: true)
                var time = monotonicNanoseconds()
                bytes.append(contentsOf: CopyBinaryEncoder.header)
                for event in batch {
                    let fields = CopyBinaryEncoder.append(event, to: &bytes)
                    rows.append(RollupBatch.Row(occurredAt: event.occurredAt, fields: fields))
                }
                encodeTime += monotonicNanoseconds() - time
                time = monotonicNanoseconds()
                let parameters = RollupBatch(rows: rows, in: bytes, userSets: true).parameters(excluding: known)
                // What the sink does once the batch commits.
                if known.count + parameters.newActors.count > PostgresSink.knownActorLimit { known.removeAll() }
                known.formUnion(parameters.newActors.set, entries: parameters.newActors.entries)
                rollupTime += monotonicNanoseconds() - time
                parameterBytes += parameters.arrays.reduce(0) { $0 + $1.count }
            }
            precondition(parameterBytes > 0)
            encode.append(encodeTime)
            rollups.append(rollupTime)
        }
        return Result(
            encode: Double(encode.median) / Double(events.count),
            rollups: Double(rollups.median) / Double(events.count)
        )
    }
}
