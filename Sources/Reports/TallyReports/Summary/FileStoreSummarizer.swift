import TallyCore
package import TallyFileStore

/// Computes summaries over the file store, exactly: an event stored twice (a re-run ingest) is
/// counted once.
///
/// Copies of one event share its `occurred_at`, so they sit in the same day's files: duplicates
/// are found with one day's ids in memory at a time.
package struct FileStoreSummarizer: Sendable {
    /// The store.
    package let reader: FileStoreReader

    /// A summarizer over the store under `directory`.
    package init(directory: String) {
        reader = FileStoreReader(directory: directory)
    }

    fileprivate struct Accumulator {
        var events = 0
        var users = Set<ExactString>()  // byte-exact, as PostgreSQL counts them
        var names = Set<String>()
        var first = Timestamp(nanosecondsSinceEpoch: .max)
        var last = Timestamp(nanosecondsSinceEpoch: .min)
        var unsampled = 0.0
    }

    /// Runs `query`.
    package func summarize(_ query: SummaryQuery) throws -> Summary {
        var groups: [String: Accumulator] = [:]
        var total = Accumulator()
        var seen = Set<EventID>()
        var currentDay: CivilDate?
        var eventsRead = 0
        var duplicates = 0
        let layout = reader.layout
        var unreadable = 0
        var torn = 0
        for segment in try layout.eventSegments() {
            if let since = query.since, segment.day.daysSinceEpoch < since.utcDate.daysSinceEpoch { continue }
            if let until = query.until, segment.day.daysSinceEpoch > until.utcDate.daysSinceEpoch { continue }
            if segment.day != currentDay {
                seen.removeAll(keepingCapacity: true)
                currentDay = segment.day
            }
            let report = try reader.forEachEvent(inSegment: segment) { event in
                guard query.matches(event) else { return }
                eventsRead += 1
                guard seen.insert(event.eventID).inserted else {
                    duplicates += 1
                    return
                }
                let key = query.key(of: event)
                groups[key, default: Accumulator()].add(event)
                total.add(event)
            }
            unreadable += report.unreadableLines.count
            torn += report.tornLines
        }
        let rows = groups.map { key, value in value.row(key: key) }
        var summary = Summary(
            rows: rows,
            total: total.events > 0 ? total.row(key: "total") : nil,
            query: query,
            eventsRead: eventsRead,
            duplicates: duplicates,
            unreadableLines: unreadable,
            tornLines: torn
        )
        if query.feature == nil, query.event == nil { summary.identities = try identities(query) }
        return summary
    }

    /// identify / group / alias records in the query's time range, each once.
    private func identities(_ query: SummaryQuery) throws -> [EventKind: Int] {
        var counts: [EventKind: Int] = [:]
        var seen = Set<EventID>()
        try reader.forEachIdentity { record in
            if let since = query.since, record.occurredAt < since { return }
            if let until = query.until, !(record.occurredAt < until) { return }
            if seen.insert(record.eventID).inserted { counts[record.kind, default: 0] += 1 }
        }
        return counts
    }
}

extension FileStoreSummarizer.Accumulator {
    mutating func add(_ event: EventEnvelope) {
        events += 1
        if let actor = event.actorID { users.insert(ExactString(actor)) }
        names.insert(event.name)
        if event.occurredAt < first { first = event.occurredAt }
        if last < event.occurredAt { last = event.occurredAt }
        if let rate = event.sampleRate { unsampled += 1 / rate - 1 }
    }

    func row(key: String) -> SummaryRow {
        SummaryRow(
            key: key,
            events: events,
            uniqueUsers: users.count,
            eventTypes: names.count,
            firstSeen: first,
            lastSeen: last,
            unsampledEstimate: unsampled
        )
    }
}
