import ArgumentParser
import Foundation
import TallyCore
import TallyOperations
import TallyReports

/// `tally status`.
struct StatusCommand: AsyncParsableCommand {
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json
    }

    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Compare the tracking plans with the events a store holds: never seen, unplanned, drift, rejects.",
        discussion: """
            Over a window of occurred_at (all time unless --since / --until / --last): planned events never seen \
            (with when they were last seen, if ever); events seen that no plan declares (count, first and last \
            seen, app versions, sources: context.platform, features); drift of planned events against the plan \
            version they were stored with (the latest when none): top-level properties of a type the plan does \
            not allow, properties it does not declare, required ones missing, each with a count and the smallest \
            event id as an example; failed events by reason (tally.failed_events, or the file store's \
            dead-letter files; an ingest's rejects file is its own report). A string like "42" satisfies an \
            integer when the plan normalizes strings, as validation does.

            Which store: as `tally summary` chooses (--store, --data-dir, --database-url, DATABASE_URL, PG*). \
            PostgreSQL groups the window's events in the server (three scans: time grows with the window, so \
            give one on large tables), and reads the rollups for last seen and tally.failed_events; the file \
            store reads its files. Both give the same report.

            Exit codes: 0 plans and data agree; 1 something was found (listed); 64 usage error; 65 the registry \
            has problems; 66 no file store at the data directory; 69 the database could not be reached; 74 the \
            store could not be read (or has no tally tables: tally migrate).

            Examples:
              tally status --registry Examples/registry --last 7d
              tally status --registry plans --since 2026-11-01 --until 2026-11-08 --format json
              tally status --registry plans --database-url postgresql://tally_reader@db/analytics --last 24h
            """
    )

    @OptionGroup var registry: RegistryOption

    @OptionGroup var window: TimeWindowOption

    @Option(name: .long, help: "table or json (top-level never_seen, unplanned, drift, rejected).")
    var format: Format = .table

    @Option(
        name: .long,
        help:
            "The store to read: file or postgres (default: the file store with --data-dir, PostgreSQL with --database-url, DATABASE_URL or PGHOST / PGDATABASE, else the file store)."
    )
    var store: SummaryStore.Kind?

    @OptionGroup var dataDirectory: DataDirectoryOption

    @OptionGroup var database: DatabaseOption

    func validate() throws {
        _ = try chosenStore()
    }

    private func chosenStore() throws -> SummaryStore {
        try SummaryStore.chosen(store, dataDirectory: dataDirectory, database: database)
    }

    func run() async throws {
        let loaded = try registry.load()
        let bounds = try window.bounds(now: .now())
        let window = StatusWindow(since: bounds.since, until: bounds.until)
        let store = try chosenStore()
        let observations = try await StatusReading.observe(window, registry: loaded, store: store)
        let report = StatusReport(registry: loaded, observations: observations)
        let read = store.kind == .file ? "file \(store.directory)" : "postgres"
        let text =
            format == .json
            ? StatusRenderer.json(report, window: window, store: read)
            : StatusRenderer.table(report, window: window, store: read)
        FileHandle.standardOutput.write(Data(text.utf8))
        if report.hasFindings { throw ExitCode.findings }
    }
}

extension StatusCommand.Format: Sendable {}
