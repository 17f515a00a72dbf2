/// The losses an outbox reports to the server in `outbox_diagnostics`: each a count of events
/// (files for ``corruptFiles``), cumulative in ``OutboxState/losses``, deltas in a report.
public struct DiagnosticCounts: Sendable, Hashable, Codable {
    /// Events the in-memory queue dropped (dropOldest) before they reached the outbox.
    public var droppedQueue: UInt64 = 0
    /// Written events dropped, oldest first, to keep the outbox within its caps.
    public var droppedCaps: UInt64 = 0
    /// Events that could not be written: a full disk (or another write error).
    public var droppedDiskFull: UInt64 = 0
    /// Batch files that failed to parse, moved to `corrupt/`.
    public var corruptFiles: UInt64 = 0
    /// Events those files held (by their names).
    public var corruptEvents: UInt64 = 0
    /// Events of batches the collector refused for good, moved to `dead-letter/`.
    public var deadLetteredEvents: UInt64 = 0
    /// Events the app's enrichment hooks dropped before the outbox (on purpose: not a loss, not
    /// in ``dropped``, but counted and reported like one).
    public var droppedByHooks: UInt64 = 0
    /// Events sampled out before the outbox (on purpose: not a loss, not in ``dropped``).
    public var sampledOut: UInt64 = 0

    /// All zero.
    public init() {}

    // A state.json written before a counter existed lacks its key: it reads as zero.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func count(_ key: CodingKeys) throws -> UInt64 { try container.decodeIfPresent(UInt64.self, forKey: key) ?? 0 }
        droppedQueue = try count(.droppedQueue)
        droppedCaps = try count(.droppedCaps)
        droppedDiskFull = try count(.droppedDiskFull)
        corruptFiles = try count(.corruptFiles)
        corruptEvents = try count(.corruptEvents)
        deadLetteredEvents = try count(.deadLetteredEvents)
        droppedByHooks = try count(.droppedByHooks)
        sampledOut = try count(.sampledOut)
    }

    // The property names of the `outbox_diagnostics` event.
    private enum CodingKeys: String, CodingKey {
        case droppedQueue = "dropped_queue"
        case droppedCaps = "dropped_caps"
        case droppedDiskFull = "dropped_disk_full"
        case corruptFiles = "corrupt_files"
        case corruptEvents = "corrupt_events"
        case deadLetteredEvents = "dead_lettered_events"
        case droppedByHooks = "dropped_by_hooks"
        case sampledOut = "sampled_out"
    }

    /// Every drop: queue, caps and disk.
    public var dropped: UInt64 { droppedQueue + droppedCaps + droppedDiskFull }

    var isZero: Bool { self == DiagnosticCounts() }

    /// `self - earlier`, field by field (never below zero).
    func since(_ earlier: DiagnosticCounts) -> DiagnosticCounts {
        var delta = DiagnosticCounts()
        delta.droppedQueue = droppedQueue &- min(droppedQueue, earlier.droppedQueue)
        delta.droppedCaps = droppedCaps &- min(droppedCaps, earlier.droppedCaps)
        delta.droppedDiskFull = droppedDiskFull &- min(droppedDiskFull, earlier.droppedDiskFull)
        delta.corruptFiles = corruptFiles &- min(corruptFiles, earlier.corruptFiles)
        delta.corruptEvents = corruptEvents &- min(corruptEvents, earlier.corruptEvents)
        delta.deadLetteredEvents = deadLetteredEvents &- min(deadLetteredEvents, earlier.deadLetteredEvents)
        delta.droppedByHooks = droppedByHooks &- min(droppedByHooks, earlier.droppedByHooks)
        delta.sampledOut = sampledOut &- min(sampledOut, earlier.sampledOut)
        return delta
    }

    mutating func add(_ other: DiagnosticCounts) {
        droppedQueue += other.droppedQueue
        droppedCaps += other.droppedCaps
        droppedDiskFull += other.droppedDiskFull
        corruptFiles += other.corruptFiles
        corruptEvents += other.corruptEvents
        deadLetteredEvents += other.deadLetteredEvents
        droppedByHooks += other.droppedByHooks
        sampledOut += other.sampledOut
    }
}
