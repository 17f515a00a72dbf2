/// What ``FileStoreCompactor`` did (or, in a dry run, would do).
package struct CompactionReport: Sendable, Hashable {
    /// A line a compaction removed because it is not a whole event: the fragment a crash or a
    /// failed write left (a last line without newline, or such a fragment ended by a later write).
    package struct TornLine: Sendable, Hashable {
        /// The file, as it was before the compaction.
        package var path: String
        /// 1-based, in that file.
        package var line: Int
        /// Its length.
        package var bytes: Int
    }

    /// A file left as it was, and why (another process replaced it meanwhile, a line too long).
    package struct SkippedFile: Sendable, Hashable {
        /// The file.
        package var path: String
        /// Why.
        package var reason: String
    }

    /// Whether nothing was changed (`--dry-run`).
    package var dryRun = false
    /// Day files read (events and identities).
    package var filesRead = 0
    /// Days read.
    package var days = 0
    /// Lines kept.
    package var linesKept = 0
    /// Copies of an event already kept (same `event_id`, same day) that were removed.
    package var duplicatesRemoved = 0
    /// Torn lines removed, each with its file and line number.
    package var tornLines: [TornLine] = []
    /// Lines that are whole JSON but no event the reader understands: kept, reported.
    package var unreadableKept: [FileStoreReader.UnreadableLine] = []
    /// Files rewritten (or removed, when nothing was left in them).
    package var filesRewritten: [String] = []
    /// Bytes of the day files read, before and after.
    package var bytesBefore = 0
    /// Bytes after.
    package var bytesAfter = 0
    /// Files deleted because the retention bound passed their day.
    package var expiredFiles: [String] = []
    /// Files left alone, with why.
    package var skipped: [SkippedFile] = []
    /// Temporary files of an earlier, interrupted rewrite, removed.
    package var abandonedTemporaryFiles = 0
}
