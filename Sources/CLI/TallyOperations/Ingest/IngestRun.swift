import Foundation
import ServiceLifecycle
import TallyCore
import TallyFileStore
package import TallyFormats
import TallyPipeline
package import TallySchema

/// `tally ingest` below its options: the stores opened and checked, the directories it writes
/// checked, the job and the pipeline run as services (SIGTERM and SIGINT stop the reading, the
/// pipeline stores what was accepted), and what was stored counted.
package struct IngestRun {
    /// Where events go, and where dead letters and (by default) rejects go: the data directory.
    package var stores: EventStores
    /// The stores written, each once; none means the file store.
    package var kinds: [EventStores.Kind]
    /// The inputs; `-` is stdin.
    package var sources: [String]
    /// Structural checks, and the tracking plans when there is a registry.
    package var validator: EventValidator
    /// Longer lines are rejected as `too_large`.
    package var maxLineLength: Int
    /// At most this many rejected lines: the next one stops reading; nil: no limit.
    package var maxRejects: Int?
    /// The rejects file; nil: `DATA_DIR/rejects/ingest-TIME.ndjson`.
    package var rejectsPath: String?
    /// The input's format; ``SourceFormat/auto`` decides per line.
    package var format: SourceFormat
    /// The feature of events that name none and that no tracking plan claims.
    package var defaultFeature: String?
    /// Benchmarks only: PostgreSQL's derived tables left alone (summaries become wrong).
    package var maintainRollups = true
    package var maintainUserSets = true
    package var maintainNameSets = true

    package init(
        stores: EventStores,
        kinds: [EventStores.Kind],
        sources: [String],
        validator: EventValidator,
        maxLineLength: Int,
        maxRejects: Int?,
        rejectsPath: String?,
        format: SourceFormat,
        defaultFeature: String?
    ) {
        self.stores = stores
        self.kinds = kinds
        self.sources = sources
        self.validator = validator
        self.maxLineLength = maxLineLength
        self.maxRejects = maxRejects
        self.rejectsPath = rejectsPath
        self.format = format
        self.defaultFeature = defaultFeature
    }

    /// The stores written, sorted, each once: the file store when none was chosen.
    package var chosenKinds: [EventStores.Kind] {
        kinds.isEmpty ? [.file] : Array(Set(kinds)).sorted { $0.rawValue < $1.rawValue }
    }

    /// Runs the ingest to its end (or a signal), calling `progress` as it reads.
    /// - Throws: ``CommandFailure`` when it could not start (a store not ready: 69 or 74; a
    ///   directory not writable: 73) or could not read (74, 75 when stopped before reading).
    package func run(progress: ((IngestJob.Progress) -> Void)? = nil) async throws -> IngestOutcome {
        let logger = stores.logger
        let kinds = chosenKinds
        let dataDirectory = stores.dataDirectory
        let (sinks, postgresSink) = try await stores.ingestSinks(
            kinds,
            maintainRollups: maintainRollups,
            maintainUserSets: maintainUserSets,
            maintainNameSets: maintainNameSets
        )
        let rejectsPath = self.rejectsPath ?? "\(dataDirectory)/rejects/ingest-\(Self.fileTimestamp()).ndjson"
        // Dead letters always go to the data directory, rejects next to their file: both must be
        // writable before anything is read, or events would only be found unstorable at the end.
        for (directory, option) in [
            (dataDirectory, "--data-dir"), ((rejectsPath as NSString).deletingLastPathComponent, "--rejects"),
        ] where !directory.isEmpty {
            do {
                try Directory.checkWritable(directory)
            } catch {
                throw CommandFailure(.cannotCreate, "cannot write to \(directory) (\(error)); choose another \(option)")
            }
        }
        let pipeline = EventPipeline(
            sinks: sinks,
            deadLetters: FileRejectSink(directory: dataDirectory),
            // Bounded memory whatever the input: ~30k events in flight at most (queue, batcher, sink queues).
            // 5,000-event batches: PostgreSQL's per-statement and rollup costs shrink with batch size
            // (2,000: rollups +30%, 5,000: +20% on the benchmark).
            configuration: PipelineConfiguration(
                maxBatchSize: 5_000,
                queueCapacity: 10_000,
                overflowPolicy: .block,
                sinkQueueDepth: 2,
                // Long enough to ride out a database restart (about 25 s of retries) before giving up.
                retry: RetryPolicy(maxAttempts: 10, initialBackoff: .milliseconds(200), maxBackoff: .seconds(5))
            ),
            logger: logger
        )
        let job = IngestJob(
            options: IngestJob.Options(
                validator: validator,
                maxLineLength: maxLineLength,
                maxRejects: maxRejects,
                rejectsPath: rejectsPath,
                format: format,
                defaultFeature: defaultFeature
            ),
            pipeline: pipeline,
            progress: progress
        )
        let service = IngestService(job: job, sources: sources.isEmpty ? ["-"] : sources, pipeline: pipeline)
        var groupConfiguration = ServiceGroupConfiguration(
            services: [
                .init(service: pipeline),
                .init(service: service, successTerminationBehavior: .gracefullyShutdownGroup),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        // Enough to deliver what is queued and ride out a short outage; past it, writes in progress
        // are cancelled and the rest is dead-lettered, within the service unit's TimeoutStopSec=60.
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(30)
        try await ServiceGroup(configuration: groupConfiguration).run()
        var report: IngestReport
        switch service.outcome {
        case .success(let result)?: report = result
        case .failure(let error)?: throw CommandFailure(.ioError, "\(error)")
        case nil: throw CommandFailure(.temporaryFailure, "interrupted before reading started")
        }
        let statistics = pipeline.statistics
        report.stored = statistics.delivered
        report.notStored = statistics.deadLettered + statistics.lost
        if let postgresSink {
            report.database = IngestReport.DatabaseOutcome(
                inserted: await postgresSink.inserted,
                identitiesInserted: await postgresSink.identitiesInserted,
                duplicates: await postgresSink.duplicates,
                failed: await postgresSink.failed
            )
        }
        return IngestOutcome(
            report: report,
            statistics: statistics,
            dataDirectory: dataDirectory,
            maxRejects: maxRejects
        )
    }

    /// A file name's timestamp: `20261122T101500Z`.
    package static func fileTimestamp() -> String {
        let text = Timestamp.now().rfc3339
        return String(text.prefix(19)).replacingOccurrences(of: ":", with: "").replacingOccurrences(of: "-", with: "")
            + "Z"
    }
}
