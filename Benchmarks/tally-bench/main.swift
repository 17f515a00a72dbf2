import TallyCore

/// tally-bench: the performance targets of the pipeline, each printed next to its baseline.
///
/// Run through `scripts/bench.sh` (release build). Quote medians and ratios: the machine is noisy.
let arguments = CommandLine.arguments.dropFirst()
let quick = arguments.contains("--quick")
let rounds = quick ? 3 : 15
let perRound = quick ? 20_000 : 100_000

// `--only track|delivery|enqueue|validation|segment|ingest|rollups|memory` runs one benchmark (for profiling).
let only = arguments.firstIndex(of: "--only").flatMap {
    arguments.index(after: $0) < arguments.endIndex ? arguments[arguments.index(after: $0)] : nil
}
func selected(_ name: String) -> Bool { only == nil || only == name }

print("tally-bench (\(rounds) rounds × \(perRound) events; medians)")
print("")

if selected("track") {
    let latency = try await TrackLatencyBenchmark.run(rounds: rounds, perRound: perRound)
    let median = Double(latency.samples.median - latency.timerOverhead)
    let p99 = Double(latency.samples.percentile(0.99) - latency.timerOverhead)
    print("track() incl. id + timestamp, while batches encode and flush() runs every 5 ms")
    print("  median  \(format(nanoseconds: median))   target ≤ 1 µs    ratio \(rounded(median / 1_000)) of budget")
    print("  p99     \(format(nanoseconds: p99))   target ≤ 10 µs   ratio \(rounded(p99 / 10_000)) of budget")
    print("  p99.9   \(format(nanoseconds: Double(latency.samples.percentile(0.999) - latency.timerOverhead)))")
    print(
        "  (timer overhead \(latency.timerOverhead) ns subtracted; \(latency.flushes) explicit flushes; dropped \(latency.dropped))"
    )
    print("")
}

if selected("delivery") {
    // The baseline, in the same run: track() into the plain pipeline (the figure above when it ran).
    let baseline = try await TrackLatencyBenchmark.run(rounds: rounds, perRound: perRound)
    let collector = try DeliveryBenchmark.Collector.start()
    defer { collector.stop() }
    let latency = try await DeliveryBenchmark.trackLatency(collector: collector, rounds: rounds, perRound: perRound)
    let median = Double(latency.samples.median - latency.timerOverhead)
    let p99 = Double(latency.samples.percentile(0.99) - latency.timerOverhead)
    let baseMedian = Double(baseline.samples.median - baseline.timerOverhead)
    let baseP99 = Double(baseline.samples.percentile(0.99) - baseline.timerOverhead)
    let sent = latency.statistics
    print("track() with TallyDelivery running: outbox written every 100 ms, uploads to a live tally serve")
    print(
        "  median  \(format(nanoseconds: median))   target ≤ 1 µs    plain pipeline \(format(nanoseconds: baseMedian)): "
            + "\(rounded(median / baseMedian))×"
    )
    print(
        "  p99     \(format(nanoseconds: p99))   target ≤ 10 µs   plain pipeline \(format(nanoseconds: baseP99)): "
            + "\(rounded(p99 / baseP99))×"
    )
    print(
        "  (\(sent.tracked) tracked, \(sent.uploaded) uploaded in \(sent.requests) requests, "
            + "outbox emptied: \(latency.arrived))"
    )
    let full = try await DeliveryBenchmark.trackLatency(
        collector: collector,
        rounds: rounds,
        perRound: perRound,
        sdk: true
    )
    let fullMedian = Double(full.samples.median - full.timerOverhead)
    let fullP99 = Double(full.samples.percentile(0.99) - full.timerOverhead)
    print("track() with the app SDK all on: identity, sessions, super properties, context, hooks, lifecycle")
    print(
        "  median  \(format(nanoseconds: fullMedian))   target ≤ 1 µs    plain pipeline "
            + "\(format(nanoseconds: baseMedian)): \(rounded(fullMedian / baseMedian))×"
    )
    print(
        "  p99     \(format(nanoseconds: fullP99))   target ≤ 10 µs   plain pipeline "
            + "\(format(nanoseconds: baseP99)): \(rounded(fullP99 / baseP99))×"
    )
    print(
        "  (\(full.statistics.tracked) tracked, \(full.statistics.uploaded) uploaded, outbox emptied: \(full.arrived))"
    )
    let cost = try await DeliveryBenchmark.writeCost(batches: quick ? 50 : 200, batchSize: 100, rounds: quick ? 3 : 7)
    print("write cost per event, 100-event batches made durable one by one")
    print(
        "  outbox      \(format(nanoseconds: cost.outbox))   (batch file: write, fsync, rename, directory fsync)"
    )
    print(
        "  file store  \(format(nanoseconds: cost.fileStore))   (FileSink append + flush: fsync)   "
            + "ratio \(rounded(cost.outbox / cost.fileStore))×"
    )
    let wire = DeliveryBenchmark.wireBytes(count: 1_000)
    print("bytes on the wire per event (1,000 demo events in one request)")
    print(
        "  tally NDJSON gzip \(rounded(wire.tallyGzip))   Segment JSON uncompressed \(rounded(wire.segmentPlain)): "
            + "\(rounded(wire.tallyGzip / wire.segmentPlain))×"
    )
    print(
        "  (tally NDJSON \(rounded(wire.tallyPlain)), Segment gzip \(rounded(wire.segmentGzip)); live run: "
            + "\(rounded(Double(sent.bytesSent) / Double(max(sent.uploaded, 1)))) gzip bytes per event sent)"
    )
    print("")
}

if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *), selected("enqueue") {
    let enqueue = try await EnqueueBenchmark.run(rounds: rounds, perRound: perRound)
    print(
        "enqueue alone: EventPipeline.offer vs Mutex<[EventEnvelope]>.append (\(perRound) events into an empty queue)"
    )
    print("  pipeline      \(format(nanoseconds: enqueue.pipelineAlone)) per event")
    print("  Mutex<Array>  \(format(nanoseconds: enqueue.mutexArray)) per event")
    print("  ratio         \(rounded(enqueue.pipelineAlone / enqueue.mutexArray))×   target ≤ 2×")
    print(
        "  with the batcher draining on the other core: \(format(nanoseconds: enqueue.pipelineDraining)) per event, "
            + "\(rounded(enqueue.pipelineDraining / enqueue.mutexArray))× (dropped \(enqueue.dropped))"
    )
}

if selected("validation") {
    let validation = try ValidationBenchmark.run(
        rounds: rounds,
        perRound: perRound / 10,
        skipParse: arguments.contains("--skip-parse")
    )
    let megabytesPerSecond = Double(validation.lineBytes) / validation.parse * 1_000
    print("")
    print("per event: decode an NDJSON line, validate against a tracking plan (5 properties, one pattern)")
    print(
        "  parse     \(format(nanoseconds: validation.parse)) per \(validation.lineBytes)-byte line (\(rounded(megabytesPerSecond)) MB/s)"
    )
    print(
        "  validate  \(format(nanoseconds: validation.validate))   target ≤ 1 µs   ratio \(rounded(validation.validate / 1_000)) of budget"
    )
}

if selected("segment") {
    let segment = try SegmentEventBenchmark.run(rounds: rounds, perRound: perRound / 10)
    let total = segment.parse + segment.validate
    print("")
    print("per event: a Segment Order Completed call (three products, \(segment.lineBytes) bytes) against its plan")
    print("  parse + map  \(format(nanoseconds: segment.parse))")
    print("  validate     \(format(nanoseconds: segment.validate))")
    print("  together     \(format(nanoseconds: total))   target ≤ 4 µs   ratio \(rounded(total / 4_000)) of budget")
}

if selected("ingest") {
    let ingest = try IngestBenchmark.run(lines: quick ? 20_000 : 200_000, rounds: quick ? 3 : 7)
    print("")
    print(
        "ingest on one core: read + decode + validate (\(ingest.validation)) + encode to /dev/null, "
            + "\(rounded(ingest.megabytes)) MB"
    )
    print("  tally        \(rounded(ingest.tallyMBps)) MB/s   target ≥ 115 MB/s")
    print("  JSONDecoder  \(rounded(ingest.foundationMBps)) MB/s   (decode only, same file)")
    print("  ratio        \(rounded(ingest.tallyMBps / ingest.foundationMBps))×   target ≥ 4.4×")
}

if selected("rollups") {
    print("")
    print("PostgreSQL sink, client side: hourly rollups + per-day actors of 5,000-event batches vs COPY encoding")
    for users in [500, 100_000] {
        let rollups = try RollupBenchmark.run(events: quick ? 50_000 : 200_000, users: users, rounds: quick ? 3 : 9)
        print(
            "  \(users) users: rollups \(format(nanoseconds: rollups.rollups)), COPY rows "
                + "\(format(nanoseconds: rollups.encode)) per event (done for every load): "
                + "\(rounded(rollups.rollups / rollups.encode))×"
        )
    }
    print("  (end to end: scripts/bench.sh --part postgres)")
}

if selected("memory") {
    // `--rss-lines N` for the 10M-line figure (outside CI: ~3 GB of input).
    let requested = arguments.firstIndex(of: "--rss-lines").flatMap { Int(arguments[arguments.index(after: $0)]) }
    let memory = try MemoryBenchmark.run(lines: requested ?? (quick ? 100_000 : 1_000_000))
    print("")
    print("tally ingest of \(memory.lines) lines (\(rounded(memory.megabytes)) MB) into a fresh file store, end to end")
    print(
        "  peak RSS     \(rounded(memory.peakRSSMegabytes)) MB   target ≤ 64 MB   ratio \(rounded(memory.peakRSSMegabytes / 64)) of budget"
    )
    print("  throughput   \(rounded(memory.megabytes / memory.seconds)) MB/s incl. fsynced writes")
}
