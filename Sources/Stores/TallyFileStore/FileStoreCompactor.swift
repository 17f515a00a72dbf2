package import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Rewrites a file store's day files without duplicate events or torn lines, and deletes the
/// files a retention bound has passed: `tally compact`.
///
/// **Compaction.** For each day whose files changed since the last compaction, the files are read
/// in order (one day's event ids in memory, as `tally summary` does) and each is rewritten with the
/// first copy of every event, torn lines left out, as a new file renamed over the old one
/// (``FileReplacement``). Writers keep appending meanwhile: the bulk of a file is read without its
/// lock, then, holding the file's lock (``FileLock``), what was appended since is read and the new
/// file renamed into place, so a writer waits only for that tail. A writer that held the old file
/// open finds it replaced once it has the lock and appends to the new one.
///
/// **Retention.** A day file is deleted once its whole day ended before `now - retain` (with 90
/// days, on 2026-11-22 the files of 2026-08-23 and before go; 2026-08-24 stays), under its lock;
/// the dead-letter and rejects files likewise with their own bound.
package struct FileStoreCompactor: Sendable {
    /// What to do.
    package struct Options: Sendable {
        /// Day files (events, identities) whose day ended more than this many seconds ago are deleted.
        package var retainSeconds: Int64?
        /// Dead-letter and rejects files whose day ended more than this many seconds ago are deleted.
        package var retainFailedSeconds: Int64?
        /// Report what would be done, change nothing.
        package var dryRun: Bool
        /// The time retention counts from.
        package var now: Timestamp

        /// Compaction only, from now.
        package init(
            retainSeconds: Int64? = nil,
            retainFailedSeconds: Int64? = nil,
            dryRun: Bool = false,
            now: Timestamp = .now()
        ) {
            self.retainSeconds = retainSeconds
            self.retainFailedSeconds = retainFailedSeconds
            self.dryRun = dryRun
            self.now = now
        }
    }

    /// The store.
    package let layout: FileStoreLayout
    /// Called with a file's path after its new contents are written and fsynced, before the rename
    /// (tests inject a crash there).
    package var beforeReplacing: (@Sendable (String) throws -> Void)?

    /// A compactor of the store under `directory`.
    package init(directory: String) {
        layout = FileStoreLayout(root: directory)
    }

    /// Compacts, after deleting what the retention bounds passed. Holds the store's
    /// ``MaintenanceLock`` throughout; `waiting` is called when another command holds it first.
    package func run(_ options: Options, waiting: () -> Void = {}) throws -> CompactionReport {
        let lock = try MaintenanceLock(layout: layout, waiting: waiting)
        defer { withExtendedLifetime(lock) {} }
        var report = CompactionReport()
        report.dryRun = options.dryRun
        try removeAbandonedTemporaryFiles(&report)
        try expire(options, &report)
        var state = CompactionState(layout: layout)
        for segments in [try layout.eventSegments(), try layout.identitySegments()] {
            for day in Dictionary(grouping: segments, by: \.day).sorted(by: {
                $0.key.daysSinceEpoch < $1.key.daysSinceEpoch
            })
            where !day.value.allSatisfy({ state.isClean($0.path) }) {
                report.days += 1
                var seen = Set<EventID>()
                for segment in day.value.sorted() {
                    var compaction = SegmentCompaction(path: segment.path, dryRun: options.dryRun)
                    try compaction.run(seen: &seen, report: &report, beforeReplacing: beforeReplacing)
                    if compaction.removed {
                        state.forget(segment.path)
                    } else if !compaction.skipped {
                        state.recordClean(segment.path)
                    }
                }
            }
        }
        if !options.dryRun { try state.save() }
        return report
    }

    /// The first day retention keeps for a bound of `seconds` before `now`: every earlier day ended
    /// before the bound.
    package static func firstKeptDay(seconds: Int64, now: Timestamp) -> CivilDate {
        now.advanced(byNanoseconds: -seconds * 1_000_000_000).utcDate
    }

    private func expire(_ options: Options, _ report: inout CompactionReport) throws {
        var doomed: [String] = []
        if let seconds = options.retainSeconds {
            let first = Self.firstKeptDay(seconds: seconds, now: options.now).daysSinceEpoch
            for segment in try layout.eventSegments() + layout.identitySegments()
            where segment.day.daysSinceEpoch < first {
                doomed.append(segment.path)
            }
        }
        if let seconds = options.retainFailedSeconds {
            let first = Self.firstKeptDay(seconds: seconds, now: options.now).daysSinceEpoch
            for file in try layout.failedFiles() where file.day.daysSinceEpoch < first { doomed.append(file.path) }
        }
        var directories = Set<String>()
        for path in doomed {
            // Under the file's lock: a writer appending a late event waits, then creates the file anew.
            let descriptor = systemOpen(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            try FileLock.lock(descriptor, path: path)
            guard FileLock.isCurrent(descriptor, path: path) else { continue }
            report.expiredFiles.append(path)
            if options.dryRun { continue }
            if unlink(path) != 0 { throw IOError(.unlink, path: path, errno: errno) }
            directories.insert(Directory.parent(of: path))
        }
        for directory in directories.sorted() { try Directory.sync(directory) }
    }

    private func removeAbandonedTemporaryFiles(_ report: inout CompactionReport) throws {
        for directory in [
            layout.root, layout.eventsDirectory, layout.identitiesDirectory, layout.deadLetterDirectory,
            layout.rejectsDirectory,
        ] {
            for name in try Directory.list(directory) where FileReplacement.isTemporary(name) {
                report.abandonedTemporaryFiles += 1
                if !report.dryRun { unlink(directory + "/" + name) }
            }
        }
    }
}
