public import ArgumentParser
import Foundation
public import Logging
import ServiceLifecycle
public import TallyDelivery
import TallyFileStore
public import TallyPipeline
public import TallySchema

/// Runs the Examples feature's events through the pipeline into the file store and stdout, or,
/// in app mode (`--endpoint`, `--write-key`, `--outbox`), through a disk outbox and the uploader
/// to a collector.
@main
struct EpisodeDemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "episode-demo",
        abstract: "Track the Episode feature's events through the tally pipeline into the file store.",
        discussion: """
            Simulates users opening the episode list and selecting episodes. Every event goes through the \
            batching pipeline (in-app settings: dropOldest, never blocking) into the file store under the data \
            directory and, unless --no-stdout, to stdout. SIGTERM or SIGINT stops it gracefully: everything \
            tracked is written before it exits. The last line on stderr is the pipeline's statistics.

            Examples:
              episode-demo                            # 20 screen visits into ./tally-data and stdout
              episode-demo --visits 1000 --no-stdout  # more events, quietly
              episode-demo --until-signal             # track until Ctrl-C
              episode-demo --registry Examples/registry  # validate against the tracking plan

            App mode: with --endpoint, --write-key and --outbox the events go through a disk outbox and the \
            uploader (TallyDelivery) to a collector instead, and are not echoed. At the end (after --visits, or \
            SIGTERM/SIGINT: the outbox is written, uploads go on for --flush-timeout) it prints one JSON line on \
            stdout: this run's counters, then the outbox directory's lifetime counters under "outbox".
              episode-demo --endpoint http://127.0.0.1:8080 --write-key KEY --outbox /tmp/outbox --visits 500
            The outbox directory is the simulated install: its anonymous id, user and session persist there \
            (identity.json). --login-after N identifies --user-id after N visits; --session-timeout, \
            --session-events, --lifecycle (with --background-after), --super-property, --enrich and --drop-event \
            turn on the rest of the app SDK.
            --consent pending|denied|granted sets the user's consent, remembered in the outbox directory (pending: \
            events wait in the outbox, nothing is uploaded; denied: nothing is kept and the outbox is emptied). With \
            --registry, the plan's x-tally-personal-data properties are removed or hashed and its \
            x-tally-sample-rate events sampled before the outbox.
            """
    )

    @Option(
        name: .long,
        help: "Data directory of the file store (default: $TALLY_DATA_DIR when set, else tally-data); not in app mode."
    )
    var dataDir: String?

    /// Where the file store is: `--data-dir`, else the default.
    private var dataDirectory: String { dataDir ?? FileStoreLayout.defaultRoot }

    @Option(name: .long, parsing: .unconditional, help: "Screen visits to simulate.")
    var visits: Int = 20

    @Flag(name: .long, help: "Keep tracking until SIGTERM/SIGINT instead of stopping after --visits.")
    var untilSignal = false

    @Flag(name: .long, help: "Do not write events to stdout.")
    var noStdout = false

    @Option(name: .long, help: "stdout format: human or ndjson (default: human on a terminal, else ndjson).")
    var format: StdoutSink.Format?

    @Option(
        name: .long,
        help: "Validate events against this tracking-plan directory (default: $TALLY_REGISTRY, if set)."
    )
    var registry: String?

    @Option(name: .long, help: "What happens to invalid events: reject, annotate or strict.")
    var validation: ValidationPolicy = .reject

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .notice

    @OptionGroup(title: "App mode (the outbox and the uploader)")
    var app: AppModeOptions

    @OptionGroup(title: "App mode: identity, sessions, lifecycle, super properties, hooks")
    var sdk: SDKOptions

    func validate() throws {
        guard visits >= 1 else { throw ValidationError("--visits must be at least 1.") }
        guard dataDir?.isEmpty != true else { throw ValidationError("--data-dir must not be empty.") }
        try app.validate()
        if app.isEnabled, dataDir != nil {
            // App mode stores nothing locally but the outbox: the option would be silently unused.
            throw ValidationError(
                "--data-dir is for the file store; in app mode events go to --endpoint and wait in --outbox: leave it out."
            )
        }
        try validateSDKFlags()
    }

    /// The SDK flags act in app mode only, at a visit that happens.
    private func validateSDKFlags() throws {
        let visitFlags = [
            ("--login-after", sdk.loginAfter), ("--logout-after", sdk.logoutAfter),
            ("--background-after", sdk.backgroundAfter),
        ]
        guard app.isEnabled else {
            let used =
                visitFlags.contains { $0.1 != nil } || sdk.sessionEvents || sdk.lifecycle
                || !(sdk.superProperty + sdk.enrich + sdk.dropEvent).isEmpty
            if used {
                throw ValidationError("The identity, session, lifecycle and hook flags need app mode (--endpoint …).")
            }
            return
        }
        for case (let name, let visit?) in visitFlags {
            guard visit >= 1 else { throw ValidationError("\(name) counts visits from 1: give 1 or more.") }
            if !untilSignal, visit > visits {
                throw ValidationError("\(name) \(visit) is past the run's last visit (--visits \(visits)).")
            }
        }
        if sdk.backgroundAfter != nil, !sdk.lifecycle {
            throw ValidationError("--background-after reports lifecycle events: add --lifecycle.")
        }
        if sdk.userID.isEmpty { throw ValidationError("--user-id must not be empty.") }
        if app.runID != nil, sdk.sessionEvents {
            throw ValidationError("--run-id replaces the session id that --session-events reports: give one of them.")
        }
    }

    func run() async throws {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "episode-demo")
        let eventValidation = try loadValidation(logger: logger)
        if app.isEnabled {
            try await runAppMode(validation: eventValidation, logger: logger)
            return
        }
        var sinks: [any EventSink] = [FileSink(directory: dataDirectory, logger: logger)]
        if !noStdout { sinks.append(StdoutSink(format: format)) }
        let pipeline = EventPipeline(
            sinks: sinks,
            deadLetters: FileRejectSink(directory: dataDirectory),
            configuration: .inApp,
            validation: eventValidation,
            logger: logger
        )
        let app = EpisodeDemoApp(
            tracker: pipeline.tracker(feature: "episode", identity: TrackerIdentity(anonymousID: "demo-install")),
            visits: untilSignal ? nil : visits,
            rate: nil,
            logger: logger
        )
        var configuration = ServiceGroupConfiguration(
            services: [
                .init(service: pipeline),
                .init(service: app, successTerminationBehavior: .gracefullyShutdownGroup),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        // Past this, shutdown turns into cancellation: writes in progress are cancelled and what is
        // left goes to the dead-letter files at once, so the process always ends.
        configuration.maximumGracefulShutdownDuration = .seconds(10)
        try await ServiceGroup(configuration: configuration).run()
        let statistics = pipeline.statistics
        let report =
            "episode-demo: accepted=\(statistics.accepted) dropped=\(statistics.dropped) "
            + "delivered_file=\(statistics.delivered["file", default: 0]) rejected=\(statistics.rejected) "
            + "dead_lettered=\(statistics.deadLettered) "
            + "lost=\(statistics.lost) data_dir=\(dataDirectory)\n"
        FileHandle.standardError.write(Data(report.utf8))
        if statistics.deadLettered > 0 || statistics.lost > 0 || statistics.rejected > 0 { throw ExitCode(1) }
    }

    /// The tracking plans of --registry (or $TALLY_REGISTRY), if any; exits 1 when they cannot be loaded.
    private func loadValidation(logger: Logger) throws -> EventValidation? {
        let registryDirectory =
            registry ?? ProcessInfo.processInfo.environment["TALLY_REGISTRY"].flatMap { $0.isEmpty ? nil : $0 }
        guard let registryDirectory else { return nil }
        do {
            let loaded = try SchemaRegistry.load(directory: registryDirectory)
            return EventValidation(validator: EventValidator(registry: loaded), policy: validation)
        } catch {
            logger.error(
                "cannot load the tracking plans",
                metadata: ["tally.registry": "\(registryDirectory)", "error": "\(error)"]
            )
            throw ExitCode(1)
        }
    }
}

extension StdoutSink.Format: ExpressibleByArgument {}
extension ValidationPolicy: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}
extension ConsentState: ExpressibleByArgument {}
