import ArgumentParser
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import TallyCore
import TallyDashboard
import TallyOperations
import TallyReports

#if canImport(Glibc)
    import Glibc
#endif

/// `tally dashboard`.
struct DashboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard",
        abstract: "Serve the reports as pages for the team (and a JSON API), on a port of its own.",
        discussion: """
            Pages: the overview (events by feature, active actors, top events, data quality), events (trend \
            and breakdown of one event), funnels (the saved ones and a form), retention (cohorts shaded by \
            share), tracking plans (what `tally status` finds, rejects, device drops) and saved reports (each \
            file of --reports as panels). Every page keeps its range, feature and time zone in the URL. Charts \
            are inline SVG with their numbers beside them; no JavaScript, nothing loaded from elsewhere. The \
            API (docs/dashboard.md) answers as `tally report --format json` prints.

            Access: reader keys (`tally keys add --reader`), sent as Authorization: Bearer KEY or HTTP Basic \
            with the key as the password. Without --keys it serves loopback only. Every report runs under \
            --time-limit: past it the page says so (503) and other pages go on. Which store: as `tally \
            summary` chooses; give PostgreSQL the reader role (tally_reader).

            Exit codes: 0 stopped (SIGTERM/SIGINT); 64 usage error (a non-loopback --host without --keys, a \
            port in use); 65 a broken keys file or registry; 66 no keys file or file store; 69 the database \
            cannot be reached.

            Examples:
              tally dashboard --data-dir tally-data --reports reports --registry Examples/registry
              tally dashboard --database-url postgresql://reader@db/tally --keys /etc/tally/keys.json --host 0.0.0.0
            """
    )

    @Option(name: .long, help: "The address to listen on (only loopback without --keys).")
    var host = "127.0.0.1"

    @Option(name: .long, help: "The port (0: any free one, printed once listening).")
    var port = 8090

    @Option(name: .long, help: "The keys file holding reader keys (`tally keys add --reader`).")
    var keys: String?

    @Option(name: .long, help: "A directory of saved reports (JSON) to show (default ./reports when it exists).")
    var reports: String?

    @Option(name: .long, help: "Tracking plans, for the plans page and the events page's property list.")
    var registry: String?

    @Option(name: .long, help: "Seconds a report may take before its page answers 503.")
    var timeLimit: Double = 10

    @Option(
        name: .long,
        help: "The store to read: file or postgres (default: as `tally summary` chooses; not clickhouse)."
    )
    var store: SummaryStore.Kind?

    @OptionGroup var dataDirectory: DataDirectoryOption

    @OptionGroup var database: DatabaseOption

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel = "notice"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535.") }
        guard timeLimit > 0, timeLimit <= 3600 else { throw ValidationError("--time-limit: 0 to 3600 seconds.") }
        _ = try SummaryStore.chosen(store, dataDirectory: dataDirectory, database: database)
    }

    static func isLoopback(_ host: String) -> Bool {
        ["127.0.0.1", "::1", "localhost"].contains(host) || host.hasPrefix("127.")
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .notice
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "tally.dashboard")
        let readers = try DashboardSetup.readerKeys(keys)
        if readers.isEmpty, !Self.isLoopback(host) {
            throw CommandFailure(
                .usage,
                "no reader keys: the dashboard serves loopback only (--host 127.0.0.1); "
                    + "make one with `tally keys add --keys FILE --source NAME --reader` and pass --keys FILE"
            )
        }
        try ListenAddressCheck.check(host: host, port: port)
        var chosen = try SummaryStore.chosen(store, dataDirectory: dataDirectory, database: database)
        let location = try await DashboardSetup.location(&chosen)
        let plans = try registry.map { try RegistryOption.load(directory: $0) }
        var reportsDirectory = reports
        if reportsDirectory == nil, RegistryOption.isDirectory("reports") { reportsDirectory = "reports" }
        if let reportsDirectory, !RegistryOption.isDirectory(reportsDirectory) {
            throw CommandFailure(.usage, "--reports \(reportsDirectory): not a directory of saved reports")
        }
        let store = DashboardStore(
            location: location,
            headline: chosen.headline,
            timeLimit: .milliseconds(Int64(timeLimit * 1000)),
            logger: logger
        )
        let dashboard = Dashboard(
            context: DashboardContext(store: store, registry: plans, reportsDirectory: reportsDirectory),
            keys: readers,
            logger: logger
        )
        if readers.isEmpty {
            Terminal.error("warning: no reader keys: anyone who can reach \(host) opens the dashboard")
        }
        let host = self.host
        let application = dashboard.makeApplication(host: host, port: port) { port in
            let line = "tally dashboard: listening on http://\(host.contains(":") ? "[\(host)]" : host):\(port)\n"
            try? FileDescriptorWriter.writeAll(Array(line.utf8), to: STDERR_FILENO, path: "<stderr>")
        }
        var group = ServiceGroupConfiguration(
            services: [.init(service: application)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        group.maximumGracefulShutdownDuration = .seconds(15)
        do {
            try await ServiceGroup(configuration: group).run()
        } catch let error as NIOCore.IOError where [EADDRINUSE, EACCES, EADDRNOTAVAIL].contains(error.errnoCode) {
            throw CommandFailure(.usage, ListenAddressCheck.message(host: host, port: port, errno: error.errnoCode))
        } catch let error as SocketAddressError {
            throw ListenAddressCheck.hostFailure(host, error)
        }
    }
}
