import ArgumentParser
import Foundation
import TallyFileStore
import TallyOperations

/// `tally compact`.
struct CompactCommand: ParsableCommand {
    enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Rewrite the file store without duplicate events or torn lines; delete what retention passed.",
        discussion: """
            The file store only appends: ingesting a file again appends its events again (readers count each \
            event_id once), and a crash can leave a torn last line. compact rewrites each day file that changed \
            since the last compaction with the first copy of every event and without torn lines (each listed \
            with its file and line number), as a new file fsynced and renamed over the old one: a crash leaves \
            the old file or the new one, never a mix. Summaries are the same before and after.

            It is safe while tally ingest or tally serve write to the store: writers hold each file's lock \
            while they append, and compact holds it only to read what was appended since it began and to swap \
            the file. One compact or replay at a time per data directory (a second one waits).

            --retain DURATION deletes the event and identity files of days that ended more than DURATION ago \
            (90d on 2026-11-22: 2026-08-23 and before go, 2026-08-24 stays). --retain-failed DURATION does the \
            same with the dead-letter and rejects files (replay them first: tally replay). Durations are hours, \
            days or weeks: 36h, 90d, 12w.

            Exit codes: 0 done; 64 usage error (a bad duration); 66 no file store at the data directory; 73 the \
            store cannot be written (permissions, read-only); 74 reading or writing failed (nothing half done: \
            each file is replaced whole or not at all).

            Examples:
              tally compact
              tally compact --data-dir /var/lib/tally --retain 90d
              tally compact --retain 13w --retain-failed 30d --dry-run
              tally compact --report json
            """
    )

    @OptionGroup var store: DataDirectoryOption

    // `.unconditional`: "-1d" is this option's (wrong) value, answered as such, not a missing one.
    @Option(
        name: .long,
        parsing: .unconditional,
        help: "Delete event and identity files of days that ended more than this long ago (36h, 90d, 12w)."
    )
    var retain: String?

    @Option(
        name: .long,
        parsing: .unconditional,
        help: "Delete dead-letter and rejects files of days that ended more than this long ago."
    )
    var retainFailed: String?

    @Flag(name: .long, help: "Report what would be removed; change nothing.")
    var dryRun = false

    @Option(name: .long, help: "The report: text or json.")
    var report: ReportFormat = .text

    func validate() throws {
        if let retain { _ = try RetentionDuration.seconds(retain, option: "--retain") }
        if let retainFailed { _ = try RetentionDuration.seconds(retainFailed, option: "--retain-failed") }
    }

    func run() throws {
        let directory = store.path
        let options = FileStoreCompactor.Options(
            retainSeconds: try retain.map { try RetentionDuration.seconds($0, option: "--retain") },
            retainFailedSeconds: try retainFailed.map { try RetentionDuration.seconds($0, option: "--retain-failed") },
            dryRun: dryRun
        )
        let result = try Compaction.run(directory: directory, options: options)
        let text =
            report == .json
            ? CompactReportRenderer.json(result, directory: directory)
            : CompactReportRenderer.text(
                result,
                directory: directory,
                options: options,
                retain: retain,
                retainFailed: retainFailed
            )
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
