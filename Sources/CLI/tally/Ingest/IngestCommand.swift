public import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import TallyCore
import TallyFileStore
import TallyFormats
import TallyIngest
import TallyPipeline
import TallyPostgres
import TallySchema

/// `tally ingest [FILE ...]`.
struct IngestCommand: AsyncParsableCommand {
    enum Sink: String, ExpressibleByArgument, CaseIterable {
        case file, stdout, postgres, clickhouse
    }

    enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Load NDJSON events through validation into the store.",
        discussion: """
            Reads each FILE (or stdin for - or none) line by line with bounded memory. Each line becomes an event \
            (an id derived from its content when it has none, so ingesting a file twice stores nothing twice), \
            or several for a batch wrapper. Lines may be tally envelopes, Segment spec messages (track, page, \
            screen, identify, group, alias; a {"batch": [...]} wrapper) or PostHog events (capture payloads or \
            batch-export rows): --format auto decides per line. identify, group and alias calls are stored as \
            identity records, apart from events. Each event is validated (structure, names, sizes and timestamps; the tracking plans too with --registry) \
            and goes to the sinks with backpressure. Rejected lines go to a rejects file (NDJSON with source, line, \
            reason, message and the raw line): once the tracking plan is fixed, tally replay stores them and keeps \
            only what still fails; or fix the lines and ingest them again.

            Every input is checked before anything is read: a missing or unreadable file, or a directory, is a \
            usage error. The report names the first rejected lines as FILE:LINE: reason; all of them are in the \
            rejects file. An input that is probably not NDJSON (a JSON array, pretty-printed JSON, binary or \
            compressed data) gets a warning naming the likely cause.

            Sizes: each event may take --max-event-bytes as an NDJSON envelope (32 KiB, as in tally serve and \
            the app's pipeline); a line, \
            which may hold a batch of events (Segment's {"batch": [...]}), may take --max-line-bytes (1 MiB), \
            which must be at least --max-event-bytes.

            Exit codes: 0 done (rejects within --max-rejects); 64 usage error; 65 the data: reading stopped at \
            the rejected line beyond --max-rejects, or no line was accepted at all; 69 the database could not be \
            reached or refused the connection (nothing was read; try again later); 73 the data directory or the \
            rejects file's directory is not writable (nothing was read); 74 an input could not be read or events \
            could not be stored (they are in the dead-letter files: tally replay stores them later); 75 \
            interrupted by SIGTERM/SIGINT (everything accepted was stored; run again to finish: ids are stable).

            Examples:
              tally ingest Examples/sample/events.ndjson --registry Examples/registry
              tally generate --events 1000000 | tally ingest --quiet
              tally ingest export-*.ndjson --max-rejects 0 --report json
              tally ingest segment-export.ndjson --format segment --feature shop
              tally ingest posthog-events.jsonl --format posthog
              tally ingest events.ndjson --sink stdout --sink file
              tally ingest events.ndjson --sink postgres --database-url postgresql://tally_writer@db/analytics
            """
    )

    @Argument(help: "NDJSON files; - or none for stdin.")
    var files: [String] = []

    @Option(
        name: .long,
        help:
            "Where events go: file (the store under --data-dir), postgres (--database-url), clickhouse (--clickhouse-url) or stdout; repeatable."
    )
    var sink: [Sink] = []

    @OptionGroup var store: DataDirectoryOption

    @OptionGroup var registry: RegistryOption

    @OptionGroup var database: DatabaseOption

    @OptionGroup var clickhouse: ClickHouseOption

    @Option(
        name: .long,
        help: "The input's format: tally, segment, posthog, or auto (decided per line; docs/formats.md)."
    )
    var format: SourceFormat = .auto

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The feature of events that name none and no tracking plan claims.",
            discussion:
                "Default: for tally lines the first word of the name (episode_list_viewed → episode), for Segment and PostHog lines the source (segment, posthog)."
        )
    )
    var feature: String?

    @Option(name: .long, help: "The rejects file (default: DATA_DIR/rejects/ingest-TIME.ndjson).")
    var rejects: String?

    @Option(
        name: .long,
        parsing: .unconditional,
        help: "Tolerate at most this many rejected lines: the next one stops reading there, with exit code 65."
    )
    var maxRejects: Int?

    @Option(
        name: .long,
        parsing: .unconditional,
        help: "Reject lines longer than this many bytes (a line may hold a batch of events)."
    )
    var maxLineBytes: Int = 1 << 20

    @Option(
        name: .long,
        parsing: .unconditional,
        help: "Reject events larger than this many bytes as NDJSON (at most --max-line-bytes)."
    )
    var maxEventBytes: Int = ValidationLimits.defaultMaxEventBytes

    @Option(name: .long, help: "The final report: text or json.")
    var report: ReportFormat = .text

    @Flag(
        name: .long,
        help: ArgumentHelp("Benchmarks only: skip rollup upkeep (summaries become wrong).", visibility: .hidden)
    )
    var noRollups = false

    @Flag(
        name: .long,
        help: ArgumentHelp(
            "Benchmarks only: keep the hourly rollups but not the per-day user sets (user counts become wrong).",
            visibility: .hidden
        )
    )
    var noUserSets = false

    @Flag(
        name: .long,
        help: ArgumentHelp(
            "Benchmarks only: keep the other rollups but not the actor sets by event name (retention becomes wrong).",
            visibility: .hidden
        )
    )
    var noNameSets = false

    @Flag(name: .long, help: "No progress display.")
    var quiet = false

    func validate() throws {
        if let maxRejects, maxRejects < 0 { throw ValidationError("--max-rejects must be 0 or more.") }
        guard maxEventBytes >= 64 else { throw ValidationError("--max-event-bytes must be at least 64.") }
        guard maxLineBytes >= maxEventBytes else {
            throw ValidationError(
                "--max-line-bytes \(maxLineBytes) is below --max-event-bytes \(maxEventBytes): an event within its "
                    + "limit could not be read; raise --max-line-bytes or lower --max-event-bytes."
            )
        }
        if let feature, let problem = NamingRules.problemWithSentName(feature) {
            throw ValidationError("--feature \(problem); give a name like shop or checkout.")
        }
        // Every input, before anything is read: a bad last argument must not fail a run half done.
        for file in files where file != "-" {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
                throw ValidationError("\(file) does not exist.")
            }
            if isDirectory.boolValue {
                throw ValidationError("\(file) is a directory: give the files in it (\(file)/*.ndjson).")
            }
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw ValidationError("\(file) cannot be read (permissions).")
            }
        }
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let logger = Logger(label: "tally.ingest")
        let sinks = self.sink.isEmpty ? [Sink.file] : Array(Set(self.sink)).sorted { $0.rawValue < $1.rawValue }
        var eventSinks: [any EventSink] = []
        var postgresSink: PostgresSink?
        for sink in sinks {
            switch sink {
            case .file: eventSinks.append(FileSink(directory: store.path, logger: logger))
            case .stdout: eventSinks.append(StdoutSink(format: .ndjson))
            case .postgres:
                let sink = PostgresSink(
                    conninfo: database.conninfo,
                    maintainRollups: !noRollups,
                    maintainUserSets: !noUserSets,
                    maintainNameSets: !noNameSets,
                    logger: logger
                )
                postgresSink = sink
                eventSinks.append(sink)
            case .clickhouse:
                eventSinks.append(try clickhouse.sink(logger: logger))
            }
        }
        if sinks.contains(.clickhouse) { try await clickhouse.checkReadyForEvents() }
        if sinks.contains(.postgres) { try await database.checkReadyForEvents() }
        let plans =
            registry.registry != nil
                || ProcessInfo.processInfo.environment["TALLY_REGISTRY"].map { !$0.isEmpty } == true
            ? try registry.load() : nil
        let rejectsPath = rejects ?? "\(store.path)/rejects/ingest-\(Self.fileTimestamp()).ndjson"
        // Dead letters always go to the data directory, rejects next to their file: both must be
        // writable before anything is read, or events would only be found unstorable at the end.
        for (directory, option) in [
            (store.path, "--data-dir"), ((rejectsPath as NSString).deletingLastPathComponent, "--rejects"),
        ] where !directory.isEmpty {
            do {
                try Directory.checkWritable(directory)
            } catch {
                throw CommandFailure(.cannotCreate, "cannot write to \(directory) (\(error)); choose another \(option)")
            }
        }
        let pipeline = EventPipeline(
            sinks: eventSinks,
            deadLetters: FileRejectSink(directory: store.path),
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
        let display = !quiet && Terminal.stderrIsTerminal ? ProgressDisplay() : nil
        let job = IngestJob(
            options: IngestJob.Options(
                validator: EventValidator(registry: plans, limits: ValidationLimits(maxEventBytes: maxEventBytes)),
                maxLineLength: maxLineBytes,
                maxRejects: maxRejects,
                rejectsPath: rejectsPath,
                format: format,
                defaultFeature: feature
            ),
            pipeline: pipeline,
            progress: display.map { display in { display.update($0) } }
        )
        let service = IngestService(job: job, sources: files.isEmpty ? ["-"] : files, pipeline: pipeline)
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
        display?.finish()
        var result: IngestReport
        switch service.outcome {
        case .success(let report)?: result = report
        case .failure(let error)?: throw CommandFailure(.ioError, "\(error)")
        case nil: throw CommandFailure(.temporaryFailure, "interrupted before reading started")
        }
        let statistics = pipeline.statistics
        result.stored = statistics.delivered
        result.notStored = statistics.deadLettered + statistics.lost
        if let postgresSink {
            result.database = IngestReport.DatabaseOutcome(
                inserted: await postgresSink.inserted,
                identitiesInserted: await postgresSink.identitiesInserted,
                duplicates: await postgresSink.duplicates,
                failed: await postgresSink.failed
            )
        }
        let text =
            report == .json
            ? IngestReportRenderer.json(result) : IngestReportRenderer.text(result, sinks: sinks.map(\.rawValue))
        // With events on stdout, the report goes to stderr.
        if sinks.contains(.stdout) {
            FileHandle.standardError.write(Data(text.utf8))
        } else {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        for warning in result.warnings { Terminal.error("warning: " + warning) }
        try IngestOutcome(
            report: result,
            statistics: statistics,
            dataDirectory: store.path,
            maxRejects: maxRejects
        ).check()
    }

    static func fileTimestamp() -> String {
        let text = Timestamp.now().rfc3339
        return String(text.prefix(19)).replacingOccurrences(of: ":", with: "").replacingOccurrences(of: "-", with: "")
            + "Z"
    }
}

extension SourceFormat: ExpressibleByArgument {}
