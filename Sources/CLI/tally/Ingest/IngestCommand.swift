public import ArgumentParser
import Foundation
import Logging
import TallyFormats
import TallyOperations
import TallySchema

/// `tally ingest [FILE ...]`.
struct IngestCommand: AsyncParsableCommand {
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
            and goes to the stores with backpressure. Rejected lines go to a rejects file (NDJSON with source, line, \
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
              tally ingest events.ndjson --store stdout --store file
              tally ingest events.ndjson --store postgres --database-url postgresql://tally_writer@db/analytics
            """
    )

    @Argument(help: "NDJSON files; - or none for stdin.")
    var files: [String] = []

    @Option(
        name: .long,
        help:
            "Where events go: file (the store under --data-dir), postgres (--database-url), clickhouse (--clickhouse-url) or stdout; repeatable."
    )
    var store: [EventStores.Kind] = []

    @Option(name: .long, help: ArgumentHelp("The former name of --store.", visibility: .hidden))
    var sink: [EventStores.Kind] = []

    @OptionGroup var dataDirectory: DataDirectoryOption

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
        let plans =
            registry.registry != nil
                || ProcessInfo.processInfo.environment["TALLY_REGISTRY"].map { !$0.isEmpty } == true
            ? try registry.load() : nil
        var ingest = IngestRun(
            stores: EventStores(
                dataDirectory: dataDirectory.path,
                conninfo: database.conninfo,
                clickhouse: clickhouse.nodes,
                logger: Logger(label: "tally.ingest")
            ),
            kinds: store + sink,
            sources: files,
            validator: EventValidator(registry: plans, limits: ValidationLimits(maxEventBytes: maxEventBytes)),
            maxLineLength: maxLineBytes,
            maxRejects: maxRejects,
            rejectsPath: rejects,
            format: format,
            defaultFeature: feature
        )
        ingest.maintainRollups = !noRollups
        ingest.maintainUserSets = !noUserSets
        ingest.maintainNameSets = !noNameSets
        let display = !quiet && Terminal.stderrIsTerminal ? ProgressDisplay() : nil
        let outcome = try await ingest.run(progress: display.map { display in { display.update($0) } })
        display?.finish()
        let kinds = ingest.chosenKinds
        let text =
            report == .json
            ? IngestReportRenderer.json(outcome.report)
            : IngestReportRenderer.text(outcome.report, sinks: kinds.map(\.rawValue))
        // With events on stdout, the report goes to stderr.
        if kinds.contains(.stdout) {
            FileHandle.standardError.write(Data(text.utf8))
        } else {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        for warning in outcome.report.warnings { Terminal.error("warning: " + warning) }
        try outcome.check()
    }
}

extension SourceFormat: ExpressibleByArgument {}
extension EventStores.Kind: ExpressibleByArgument {}
