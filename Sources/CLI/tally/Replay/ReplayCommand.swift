import ArgumentParser
import Foundation
import Logging
import TallyFormats
import TallyOperations
import TallySchema

/// `tally replay [FILE ...]` and `tally replay --failed-events`.
struct ReplayCommand: AsyncParsableCommand {
    enum Store: String, ExpressibleByArgument, CaseIterable {
        case file, postgres

        var kind: EventStores.Kind {
            switch self {
            case .file: .file
            case .postgres: .postgres
            }
        }
    }

    enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Store the dead letters and rejected events that are valid now; keep what still fails.",
        discussion: """
            After a tracking plan or a database is fixed: reads dead-letter files (events a sink gave up on), \
            the collector's rejects and the rejects files of tally ingest, checks each kept event against the \
            tracking plans as they are now (--registry), stores the valid ones (--store, as tally ingest), then \
            rewrites each file with only the lines that still fail, each with its new reason (a file left empty \
            is removed). Without FILE: every dead-letter and rejects file of the data directory \
            (DATA_DIR/dead-letter/*.ndjson, DATA_DIR/rejects/*.ndjson).

            Exactly once: a file is rewritten only after its events are durable, and a replay stopped before \
            that (a kill, an outage) leaves it as it was; event ids deduplicate (the file store is read for the \
            events it already holds), so running it again stores nothing twice. Lines appended to a file while \
            it is replayed stay in it for the next run. One compact or replay at a time per data directory.

            --failed-events replays the table tally.failed_events of the database instead (as its owner, the \
            login tally migrate uses): each transaction stores a batch of events and deletes their rows; rows \
            that still fail stay, with their new reason.

            Exit codes: 0 done (lines that still fail are kept and reported); 64 usage error; 65 nothing could \
            be replayed: every line still fails; 66 no file store at the data directory (without FILE); 69 the \
            database could not be reached; 73 the data directory cannot be written; 74 events could not be \
            stored or a file could not be read or rewritten (the file is as it was; run again); 75 interrupted \
            by SIGTERM/SIGINT (files not finished are as they were; run again).

            Examples:
              tally replay --registry plans
              tally replay --registry plans --dry-run
              tally replay export-rejects.ndjson --registry plans
              tally replay --store postgres --registry plans       # DATABASE_URL: the ingest login
              tally replay --failed-events --database-url "$OWNER_URL" --registry plans
            """
    )

    @Argument(help: "Dead-letter or rejects files (default: every one in the data directory).")
    var files: [String] = []

    @Flag(name: .long, help: "Replay the database's tally.failed_events instead of files.")
    var failedEvents = false

    @Option(name: .long, help: "Where replayed events go: file (the store under --data-dir) or postgres.")
    var store: Store?

    @Option(name: .long, help: ArgumentHelp("The former name of --store.", visibility: .hidden))
    var sink: Store?

    @OptionGroup var dataDirectory: DataDirectoryOption

    @OptionGroup var registry: RegistryOption

    @OptionGroup var database: DatabaseOption

    @Option(name: .long, help: "The format of rejected input lines: tally, segment, posthog, or auto.")
    var format: SourceFormat = .auto

    @Option(name: .long, help: "The feature of events that name none and no tracking plan claims.")
    var feature: String?

    @Option(
        name: .long,
        parsing: .unconditional,
        help: "Reject events larger than this many bytes as NDJSON (as tally ingest)."
    )
    var maxEventBytes: Int = ValidationLimits().maxEventBytes

    @Flag(name: .long, help: "Report what would be replayed; change nothing.")
    var dryRun = false

    @Option(name: .long, help: "The report: text or json.")
    var report: ReportFormat = .text

    func validate() throws {
        if failedEvents {
            if !files.isEmpty { throw ValidationError("--failed-events replays the database's table: give no FILE.") }
            if chosenStore == .file {
                throw ValidationError("--failed-events stores into PostgreSQL: drop --store file.")
            }
        }
        if let store, let sink, store != sink {
            throw ValidationError("--store \(store.rawValue) and --sink \(sink.rawValue): give one --store.")
        }
        guard maxEventBytes >= 64 else { throw ValidationError("--max-event-bytes must be at least 64.") }
        if let feature, let problem = NamingRules.problemWithSentName(feature) {
            throw ValidationError("--feature \(problem); give a name like shop or checkout.")
        }
        for file in files {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
                throw ValidationError("\(file) does not exist.")
            }
            if isDirectory.boolValue { throw ValidationError("\(file) is a directory: give the files in it.") }
        }
    }

    /// `--store`, else its former name `--sink`; nil for the default (the file store).
    private var chosenStore: Store? { store ?? sink }

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
        let decoder = ReplayDecoder(
            validator: EventValidator(registry: plans, limits: ValidationLimits(maxEventBytes: maxEventBytes)),
            format: format,
            defaultFeature: feature
        )
        let stop = StopSignals()
        let output: String
        if failedEvents {
            let result = try await ReplayFailedEvents(conninfo: database.conninfo, decoder: decoder, dryRun: dryRun)
                .run(shouldStop: stop.isRequested)
            output =
                report == .json
                ? ReplayReportRenderer.json(result, plans: plans != nil)
                : ReplayReportRenderer.text(result, plans: plans != nil)
            FileHandle.standardOutput.write(Data(output.utf8))
            if result.interrupted { throw Self.interrupted }
            if result.replayedRows == 0, !result.stillFailing.isEmpty {
                throw CommandFailure(
                    .dataError,
                    "nothing could be replayed: every row still fails (see the reasons above)"
                )
            }
            return
        }
        let target = chosenStore ?? .file
        let stores = EventStores(
            dataDirectory: dataDirectory.path,
            conninfo: database.conninfo,
            clickhouse: ClickHouseNodes(urls: nil),
            logger: Logger(label: "tally.replay")
        )
        let result = try await ReplayFiles(files: files, store: target.kind, decoder: decoder, dryRun: dryRun)
            .run(stores: stores, shouldStop: stop.isRequested)
        output =
            report == .json
            ? ReplayReportRenderer.json(result, sink: target.rawValue, plans: plans != nil)
            : ReplayReportRenderer.text(result, sink: target.rawValue, plans: plans != nil)
        FileHandle.standardOutput.write(Data(output.utf8))
        if result.interrupted { throw Self.interrupted }
        if result.replayed == 0, result.stillFailing > 0 {
            throw CommandFailure(
                .dataError,
                "nothing could be replayed: every line still fails (see the reasons above)"
            )
        }
    }

    static let interrupted = CommandFailure(
        .temporaryFailure,
        "interrupted: files not finished are as they were; run the same command again (nothing is stored twice)"
    )
}
