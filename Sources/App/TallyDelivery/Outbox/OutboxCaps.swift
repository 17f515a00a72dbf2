package import TallyCore

/// Limits on what the outbox keeps on disk. Past any of them, the oldest batches are dropped
/// (counted in `dropped_caps` and reported to the server) until it is within all of them again.
public struct OutboxCaps: Sendable, Hashable {
    /// The most bytes of batch files, the waiting diagnostics report's included; at least
    /// ``minimumMaxBytes``.
    public var maxBytes: Int
    /// The most events waiting.
    public var maxEvents: Int
    /// The oldest a batch may get (from when it was written) before it is dropped.
    public var maxAge: Duration

    /// The smallest ``maxBytes`` ``TallyDelivery`` accepts (64 KiB). The diagnostics report, which
    /// the outbox never drops, counts against the cap: a cap near its size left no room for
    /// batches, and every batch was dropped while a report waited.
    public static let minimumMaxBytes = 64 * 1024

    /// 10 MB, 100,000 events, 7 days.
    public init(maxBytes: Int = 10_000_000, maxEvents: Int = 100_000, maxAge: Duration = .seconds(7 * 24 * 3600)) {
        self.maxBytes = maxBytes
        self.maxEvents = maxEvents
        self.maxAge = maxAge
    }

    /// A batch file as the caps see it.
    package struct Batch: Sendable, Hashable {
        package var name: String
        package var events: Int
        package var bytes: Int
        /// When it was written.
        package var writtenAt: Timestamp

        package init(name: String, events: Int, bytes: Int, writtenAt: Timestamp) {
            self.name = name
            self.events = events
            self.bytes = bytes
            self.writtenAt = writtenAt
        }
    }

    /// The batches to drop, oldest first, so that the rest is within the caps at `now`. `batches`
    /// are the event batches, oldest first. Those in `protected` (in flight) are neither dropped
    /// nor counted: they leave the outbox when acknowledged, and a request that fails brings them
    /// back under the caps, checked again then. Counting them dropped the batch just written while
    /// a request carried everything older. `reservedBytes` (files that are never dropped, such as
    /// a diagnostics report) count against ``maxBytes``.
    package func overflow(
        _ batches: [Batch],
        protected: Set<String>,
        reservedBytes: Int = 0,
        now: Timestamp
    ) -> [Batch] {
        let waiting = batches.filter { !protected.contains($0.name) }
        var bytes = reservedBytes + waiting.reduce(0) { $0 + $1.bytes }
        var events = waiting.reduce(0) { $0 + $1.events }
        var dropped: [Batch] = []
        for batch in waiting {
            let age = Duration.nanoseconds(now.nanosecondsSinceEpoch &- batch.writtenAt.nanosecondsSinceEpoch)
            let tooOld = age > maxAge
            guard bytes > maxBytes || events > maxEvents || tooOld else { break }
            dropped.append(batch)
            bytes -= batch.bytes
            events -= batch.events
        }
        return dropped
    }
}
