package import TallyPipeline
package import TallySchema

/// What an ingest did: every line read is accepted, rejected (with its reason) or blank.
package struct IngestReport: Sendable {
    /// Inputs read (`-` for stdin).
    package var sources: [String] = []
    /// Bytes read.
    package var bytes = 0
    /// Lines read, blank ones included.
    package var lines = 0
    /// Empty or whitespace-only lines, skipped.
    package var blankLines = 0
    /// Events that passed validation and were handed to the sinks.
    package var accepted = 0
    /// Rejected lines by reason.
    package var rejected: [ReasonCode: Int] = [:]
    /// Where the rejected lines were written, if any were.
    package var rejectsFile: String?
    /// `registry` (validated against tracking plans) or `structural` (envelope, names, sizes, timestamps).
    package var validation: String = "structural"
    /// Events each sink stored, by sink name.
    package var stored: [String: UInt64] = [:]
    /// Events that could not be stored after every retry (in the dead-letter store).
    package var notStored: UInt64 = 0
    /// What PostgreSQL did with the events it was given.
    package struct DatabaseOutcome: Sendable {
        /// New rows in `tally.events`.
        package var inserted: Int
        /// New rows in `tally.identities` (identify, group and alias records).
        package var identitiesInserted: Int
        /// Events and identity records already stored (same `event_id`): skipped.
        package var duplicates: Int
        /// Events the server refused, kept in `tally.failed_events`.
        package var failed: Int

        /// Creates an outcome.
        package init(inserted: Int, identitiesInserted: Int = 0, duplicates: Int, failed: Int) {
            self.inserted = inserted
            self.identitiesInserted = identitiesInserted
            self.duplicates = duplicates
            self.failed = failed
        }
    }

    /// Accepted events whose time was more than a day after their receipt, placed at the receipt
    /// (``TallyCore/EventEnvelope/placeIfFromTheFuture()``).
    package var futurePlaced = 0
    /// Set when the postgres sink was used.
    package var database: DatabaseOutcome?
    /// Whether the caller stopped the run early (`shouldStop`: a signal, a sink that gave up).
    package var interrupted = false
    /// Whether reading stopped at the line that took the rejects past `maxRejects`: nothing after
    /// it was read.
    package var rejectLimitReached = false
    /// The rejected line that stopped reading, when ``rejectLimitReached``.
    package var stoppedAt: Reject?
    /// The first rejected lines (at most ``firstRejectsLimit``), for the console, without their
    /// content; the rejects file holds them all.
    package var firstRejects: [Reject] = []
    /// How many rejected lines ``firstRejects`` keeps.
    package static let firstRejectsLimit = 5
    /// Inputs that are probably not NDJSON (a JSON array, pretty-printed JSON, binary data), each
    /// with the likely cause and what to do.
    package var warnings: [String] = []
    /// Wall-clock seconds.
    package var elapsedSeconds = 0.0

    /// Creates an empty report.
    package init() {}

    /// Rejected lines in all.
    package var rejectedCount: Int { rejected.values.reduce(0, +) }

    /// Events per second over the run.
    package var eventsPerSecond: Double { elapsedSeconds > 0 ? Double(accepted) / elapsedSeconds : 0 }

    /// Megabytes per second over the run.
    package var megabytesPerSecond: Double { elapsedSeconds > 0 ? Double(bytes) / 1_000_000 / elapsedSeconds : 0 }
}
