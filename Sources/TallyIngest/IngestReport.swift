public import TallySchema

/// What an ingest did: every line read is accepted, rejected (with its reason) or blank.
public struct IngestReport: Sendable {
    /// Inputs read (`-` for stdin).
    public var sources: [String] = []
    /// Bytes read.
    public var bytes = 0
    /// Lines read, blank ones included.
    public var lines = 0
    /// Empty or whitespace-only lines, skipped.
    public var blankLines = 0
    /// Events that passed validation and were handed to the sinks.
    public var accepted = 0
    /// Rejected lines by reason.
    public var rejected: [ReasonCode: Int] = [:]
    /// Where the rejected lines were written, if any were.
    public var rejectsFile: String?
    /// `registry` (validated against tracking plans) or `structural` (envelope, names, sizes, timestamps).
    public var validation: String = "structural"
    /// Events each sink stored, by sink name.
    public var stored: [String: UInt64] = [:]
    /// Events that could not be stored after every retry (in the dead-letter store).
    public var notStored: UInt64 = 0
    /// What PostgreSQL did with the events it was given.
    public struct DatabaseOutcome: Sendable {
        /// New rows in `tally.events`.
        public var inserted: Int
        /// Events already stored (same `event_id`): skipped.
        public var duplicates: Int
        /// Events the server refused, kept in `tally.failed_events`.
        public var failed: Int

        /// Creates an outcome.
        public init(inserted: Int, duplicates: Int, failed: Int) {
            self.inserted = inserted
            self.duplicates = duplicates
            self.failed = failed
        }
    }

    /// Set when the postgres sink was used.
    public var database: DatabaseOutcome?
    /// Whether the caller stopped the run early (`shouldStop`: a signal, a sink that gave up).
    public var interrupted = false
    /// Whether reading stopped at the line that took the rejects past `maxRejects`: nothing after
    /// it was read.
    public var rejectLimitReached = false
    /// The rejected line that stopped reading, when ``rejectLimitReached``.
    public var stoppedAt: RejectedLine?
    /// The first rejected lines (at most ``firstRejectsLimit``), for the console; the rejects file
    /// holds them all.
    public var firstRejects: [RejectedLine] = []
    /// How many rejected lines ``firstRejects`` keeps.
    public static let firstRejectsLimit = 5
    /// Inputs that are probably not NDJSON (a JSON array, pretty-printed JSON, binary data), each
    /// with the likely cause and what to do.
    public var warnings: [String] = []
    /// Wall-clock seconds.
    public var elapsedSeconds = 0.0

    /// Creates an empty report.
    public init() {}

    /// Rejected lines in all.
    public var rejectedCount: Int { rejected.values.reduce(0, +) }

    /// Events per second over the run.
    public var eventsPerSecond: Double { elapsedSeconds > 0 ? Double(accepted) / elapsedSeconds : 0 }

    /// Megabytes per second over the run.
    public var megabytesPerSecond: Double { elapsedSeconds > 0 ? Double(bytes) / 1_000_000 / elapsedSeconds : 0 }
}
