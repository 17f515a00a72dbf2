import ArgumentParser
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import TallyCore
import TallyOperations
import TallyPostgres
import TallySchema
import TallyServer
import UnixSignals

/// `tally serve`: the HTTP collector.
struct ServeCommand: AsyncParsableCommand {
    enum Store: String, ExpressibleByArgument, CaseIterable {
        case file, postgres, clickhouse

        var kind: EventStores.Kind {
            switch self {
            case .file: .file
            case .postgres: .postgres
            case .clickhouse: .clickhouse
            }
        }
    }

    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the HTTP collector: tally, Segment and PostHog clients send events to it.",
        discussion: """
            Routes: POST /v1/events (tally NDJSON or a JSON array); Segment's /v1/batch, /v1/b, /b, /batch and \
            /v1/track|screen|page|identify|group|alias, GET /v1/projects/KEY/settings; PostHog's /batch, /capture, \
            /e, /i/v0/e; GET /healthz, /readyz, /metrics. docs/collector.md has the details.

            A 2xx means every event it accepted is durable: committed in PostgreSQL or written and fsynced in \
            the file store; rejected events are dead-lettered first. Otherwise the answer is 429 or 503 with \
            Retry-After and nothing is acknowledged: clients resend, ids deduplicate.

            Write keys: `tally keys add --keys FILE --source NAME` makes one. Requests without a known key get 401 \
            unless --allow-anonymous (local development only): then requests without a key are accepted, and \
            without --keys (or with no keys in it) any key is accepted, as SDKs always send one.

            Once listening, prints `tally serve: listening on http://HOST:PORT` on stderr. SIGTERM/SIGINT stop \
            accepting, answer what is in flight, flush the sinks and exit 0. SIGHUP reads the keys file again \
            (`tally keys add|rotate|revoke` change it): requests in flight finish with the keys they started with, \
            and a file that cannot be read or used keeps the keys loaded before (the error is logged).

            Exit codes: 0 stopped by a signal; 64 usage error (also a --host or --port that cannot be listened \
            on); 65 a keys file that is not valid, or names a missing registry; 66 no keys file; 69 the database \
            could not be reached; 73 the data directory cannot be written.
            """
    )

    @Option(name: .long, help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(name: .long, parsing: .unconditional, help: "The port (0: any free port).")
    var port = 8080

    @Option(
        name: .long,
        help:
            "Where events go: file (under --data-dir), postgres (--database-url) or clickhouse (--clickhouse-url); default file."
    )
    var store: Store?

    @Option(name: .long, help: ArgumentHelp("The former name of --store.", visibility: .hidden))
    var sink: Store?

    @OptionGroup var dataDirectory: DataDirectoryOption

    @OptionGroup var registry: RegistryOption

    @OptionGroup var database: DatabaseOption

    @OptionGroup var clickhouse: ClickHouseOption

    @Option(name: .long, help: "The keys file (tally keys add); its keys may send.")
    var keys: String?

    @Flag(
        name: .long,
        help: "Accept requests without a key (source anonymous), any key if there are no keys: local development only."
    )
    var allowAnonymous = false

    @Option(name: .long, parsing: .unconditional, help: "Refuse bodies larger than this many bytes as sent (413).")
    var maxRequestBytes = 500 * 1024

    @Option(
        name: .long,
        parsing: .unconditional,
        help: "Reject events larger than this many bytes as NDJSON (too_large, dead-lettered)."
    )
    var maxEventBytes = ValidationLimits.defaultMaxEventBytes

    @Option(
        name: .long,
        parsing: .unconditional,
        help: "Refuse compressed bodies that inflate to more than this many bytes (413)."
    )
    var maxDecompressedBytes = 8 << 20

    @Option(
        name: .long,
        parsing: .unconditional,
        help: "Refuse compressed bodies that inflate more than this many times (413)."
    )
    var maxCompressionRatio = 100

    @Option(
        name: .long,
        parsing: .unconditional,
        help: "The largest header field, and the whole header block, in bytes (400 and close above)."
    )
    var maxHeaderBytes = 16 * 1024

    @Option(name: .long, parsing: .unconditional, help: "The most header fields of a request.")
    var maxHeaderCount = 100

    @Option(name: .long, parsing: .unconditional, help: "Close connections idle this many seconds.")
    var idleTimeout = 30.0

    @Option(
        name: .long,
        parsing: .unconditional,
        help: "Close connections whose request has not arrived whole this many seconds after its first byte."
    )
    var readTimeout = 30.0

    @Option(
        name: .long,
        parsing: .unconditional,
        help: "Answer 503 when events are not durable this many seconds after the request arrived."
    )
    var requestTimeout = 10.0

    @Option(name: .long, parsing: .unconditional, help: "Accept at most this many connections at once.")
    var maxConnections = 1024

    @Option(name: .long, parsing: .unconditional, help: "Answer 429 when this many events wait to be written.")
    var maxPendingEvents = 50_000

    @Option(
        name: .long,
        parsing: .unconditional,
        help: "With --store postgres or clickhouse: commit rounds written at once, each on its own connection."
    )
    var databaseConnections = 4

    @Option(name: .long, help: "The log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "notice"

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 to 65535.") }
        guard !host.isEmpty else {
            throw ValidationError("--host must not be empty: give an address such as 127.0.0.1.")
        }
        // Each limit on its own, so the message names the one that is wrong. The least values are
        // what any client needs: below them every request (or every event) would be refused.
        let sizes = [
            ("--max-request-bytes", maxRequestBytes, 1024), ("--max-event-bytes", maxEventBytes, 64),
            ("--max-decompressed-bytes", maxDecompressedBytes, 1024),
            ("--max-compression-ratio", maxCompressionRatio, 1),
            ("--max-header-bytes", maxHeaderBytes, 1024), ("--max-header-count", maxHeaderCount, 16),
            ("--max-connections", maxConnections, 1), ("--max-pending-events", maxPendingEvents, 1),
        ]
        for (option, value, least) in sizes where value < least {
            throw ValidationError("\(option) \(value): must be at least \(least).")
        }
        // A compressed body may inflate to no less than an uncompressed one may be, and an event
        // over the inflated cap could never arrive: both would be limits that are not what they say.
        guard maxDecompressedBytes >= maxRequestBytes else {
            throw ValidationError(
                "--max-decompressed-bytes \(maxDecompressedBytes) is below --max-request-bytes \(maxRequestBytes): "
                    + "raise --max-decompressed-bytes or lower --max-request-bytes."
            )
        }
        guard maxEventBytes <= maxDecompressedBytes else {
            throw ValidationError(
                "--max-event-bytes \(maxEventBytes) is above --max-decompressed-bytes \(maxDecompressedBytes): "
                    + "no body could hold such an event; raise --max-decompressed-bytes or lower --max-event-bytes."
            )
        }
        let timeouts = [
            ("--idle-timeout", idleTimeout), ("--read-timeout", readTimeout), ("--request-timeout", requestTimeout),
        ]
        // At most a year: more overflows the conversion to milliseconds (and traps).
        for (option, seconds) in timeouts where !(seconds > 0 && seconds <= 31_536_000) {
            throw ValidationError(
                "\(option) \(seconds): give a number of seconds above 0 and up to a year, such as 30."
            )
        }
        guard (1...64).contains(databaseConnections) else {
            throw ValidationError("--database-connections must be 1 to 64.")
        }
        guard keys != nil || allowAnonymous else {
            throw ValidationError("give --keys FILE (tally keys add makes one), or --allow-anonymous for development.")
        }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel).") }
        if let store, let sink, store != sink {
            throw ValidationError("--store \(store.rawValue) and --sink \(sink.rawValue): give one --store.")
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .notice
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "tally.serve")
        // Trapped before the keys are read: a SIGHUP from then on reloads them (once serving)
        // rather than ending the process, SIGHUP's default.
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        try ListenAddressCheck.check(host: host, port: port)
        let writeKeys = try collectorKeys()
        let table = try writeKeys.load()
        let (eventSink, rejectSink) = try await EventStores(
            dataDirectory: dataDirectory.path,
            conninfo: database.conninfo,
            clickhouse: clickhouse.nodes,
            logger: logger
        ).collectorSinks((store ?? sink ?? .file).kind, connections: databaseConnections)
        // Warned once the store is ready: a command that fails at start warns nothing.
        if allowAnonymous {
            let accepted = table.count == 0 ? "requests WITH ANY KEY OR NONE" : "requests WITHOUT A WRITE KEY"
            Terminal.error(
                "warning: --allow-anonymous: \(accepted) are accepted (source anonymous); "
                    + "never use it on a network others can reach"
            )
        } else if let keys, table.count == 0 {
            // Serving would answer 401 to every request: say so at once rather than in each reply.
            Terminal.error(
                "warning: the keys file \(keys) has no keys: every request is refused (401) until `tally keys add --keys \(keys)` adds one"
            )
            logger.warning("no write keys: every request is refused")
        }
        var configuration = CollectorConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.maxRequestBytes = maxRequestBytes
        configuration.inflate.maxOutputBytes = maxDecompressedBytes
        configuration.inflate.maxRatio = maxCompressionRatio
        configuration.maxHeaderBytes = maxHeaderBytes
        configuration.maxHeaderCount = maxHeaderCount
        configuration.idleTimeout = .milliseconds(Int64(idleTimeout * 1000))
        configuration.readTimeout = .milliseconds(Int64(readTimeout * 1000))
        configuration.requestTimeout = .milliseconds(Int64(requestTimeout * 1000))
        configuration.maxConnections = maxConnections
        configuration.maxPendingEvents = maxPendingEvents
        configuration.allowAnonymous = allowAnonymous
        let collector = Collector(
            configuration: configuration,
            keys: table,
            sink: eventSink,
            rejects: rejectSink,
            logger: logger
        )
        let host = self.host
        let application = collector.makeApplication { port in
            let line = "tally serve: listening on http://\(host.contains(":") ? "[\(host)]" : host):\(port)\n"
            try? FileDescriptorWriter.writeAll(Array(line.utf8), to: STDERR_FILENO, path: "<stderr>")
        }
        let reloader = KeysReloader(
            collector: collector,
            path: keys,
            signals: hangups,
            logger: logger,
            load: { try writeKeys.load() }
        )
        var group = ServiceGroupConfiguration(
            // The application runs the committer in its own group, stopped after the server. The
            // reloader is last, so it is the first to stop: no reload during the shutdown.
            services: [.init(service: application), .init(service: reloader)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        group.maximumGracefulShutdownDuration = .seconds(30)
        do {
            try await ServiceGroup(configuration: group).run()
        } catch let error as NIOCore.IOError
            where [EADDRINUSE, EACCES, EADDRNOTAVAIL].contains(error.errnoCode)
        {
            // Taken since ListenAddressCheck looked.
            throw CommandFailure(.usage, ListenAddressCheck.message(host: host, port: port, errno: error.errnoCode))
        } catch let error as SocketAddressError {
            throw ListenAddressCheck.hostFailure(host, error)
        }
        if let rejects = rejectSink as? PostgresRejectSink { await rejects.close() }
    }

    /// What reads the keys file into the keys the collector checks, each with its registry's
    /// validator: at start, and again on each SIGHUP. The server's own `--registry` is loaded once,
    /// here; the keys' registries each time, since the file may name new ones.
    private func collectorKeys() throws -> CollectorKeys {
        let limits = ValidationLimits(maxEventBytes: maxEventBytes)
        let plans =
            registry.registry != nil
                || ProcessInfo.processInfo.environment["TALLY_REGISTRY"].map { !$0.isEmpty } == true
            ? try registry.load() : nil
        return CollectorKeys(
            path: keys,
            fallback: EventValidator(registry: plans, limits: limits),
            limits: limits,
            allowAnonymous: allowAnonymous
        )
    }
}
