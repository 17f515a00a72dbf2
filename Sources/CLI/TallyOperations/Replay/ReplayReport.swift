package import TallyPipeline
package import TallySchema

/// What `tally replay` did with dead-letter and rejects files.
package struct ReplayReport: Sendable {
    /// One file.
    package struct File: Sendable {
        /// Its path.
        package var path: String
        /// Lines read (those appended while it was replayed are kept for the next run).
        package var lines = 0
        /// Lines whose events are now stored: gone from the file.
        package var replayed = 0
        /// Events those lines held.
        package var events = 0
        /// Of them, events the store already held (a replay stopped before it rewrote the file, or
        /// an event stored since): not stored again.
        package var alreadyStored = 0
        /// Lines still refused, by reason: kept, with that reason.
        package var stillFailing: [ReasonCode: Int] = [:]
        /// Of them, lines whose reason (or path, or message) changed: rewritten with the new one.
        package var newReasons = 0
        /// The first of them, as `file:line: reason at path: message`.
        package var firstStillFailing: [Reject] = []
        /// Lines that keep no event (a collector's reject of a body it could not read, an ingest
        /// reject of a line too long to keep): kept as they are.
        package var withoutEvent = 0
        /// Lines that are not dead-letter or rejects lines: kept as they are.
        package var unrecognized = 0
        /// Lines appended while it was replayed: kept for the next run.
        package var appendedMeanwhile = 0
        /// What became of the file.
        package var outcome: Outcome = .untouched

        /// Lines still refused.
        package var stillFailingCount: Int { stillFailing.values.reduce(0, +) }
        /// Lines left in the file.
        package var remaining: Int { stillFailingCount + withoutEvent + unrecognized + appendedMeanwhile }
    }

    /// What became of a file.
    package enum Outcome: String, Sendable {
        /// Rewritten with only what remains.
        case rewritten
        /// Removed: nothing remained.
        case removed
        /// Left as it was: nothing was replayed from it and every reason is as recorded, or this was a
        /// dry run.
        case untouched
        /// Left as it was: the replay stopped before its events were all stored.
        case notFinished = "not_finished"
    }

    /// The files, in the order they were replayed.
    package var files: [File] = []
    /// Whether SIGTERM/SIGINT stopped it.
    package var interrupted = false
    /// Whether nothing was changed (`--dry-run`).
    package var dryRun = false
    /// Seconds it took.
    package var elapsedSeconds = 0.0

    /// Lines replayed, over every file.
    package var replayed: Int { files.reduce(0) { $0 + $1.replayed } }
    /// Events stored (not already stored), over every file.
    package var eventsStored: Int { files.reduce(0) { $0 + $1.events - $1.alreadyStored } }
    /// Lines still refused, over every file.
    package var stillFailing: Int { files.reduce(0) { $0 + $1.stillFailingCount } }
}
