package import TallyCore
package import TallyFileStore

/// Reports over the file store: its day files streamed in day order (a day's copies of an event
/// counted once), with one day in memory at a time.
package struct FileStoreReportSource: ReportEventSource {
    package let reader: FileStoreReader
    /// Lines the reader could not use (torn, unreadable), for a warning.
    package let problems = Locked(0)
    /// The names of the events handed over, to tell a report over names the store never holds.
    package let names = Locked(Set<String>())

    private let io = BlockingIO(label: "tally.reports.file-store")

    package init(directory: String) {
        reader = FileStoreReader(directory: directory)
    }

    package func identities() async throws -> IdentityResolver {
        var resolver = IdentityResolver()
        let report = try reader.forEachIdentity { resolver.add($0) }
        problems.withLock { $0 += report.unreadableLines.count + report.tornLines }
        return resolver
    }

    package func feed(_ needs: EventNeeds, into evaluation: inout any ReportEvaluation) async throws {
        // Day files are read on a thread of their own (a long read never holds one of the few
        // cooperative threads), and a cancelled task stops it between segments.
        let reader = self.reader
        let problems = self.problems
        let names = self.names
        let given = evaluation
        evaluation = try await io.run { interruption in
            var evaluation = given
            try Self.read(
                reader,
                needs,
                into: &evaluation,
                problems: problems,
                names: names,
                interruption: interruption
            )
            return evaluation
        }
    }

    private static func read(
        _ reader: FileStoreReader,
        _ needs: EventNeeds,
        into evaluation: inout any ReportEvaluation,
        problems: Locked<Int>,
        names: Locked<Set<String>>,
        interruption: Interruption
    ) throws {
        let first = needs.from.utcDate.daysSinceEpoch
        let last = needs.to.advanced(byNanoseconds: -1).utcDate.daysSinceEpoch
        var day: CivilDate?
        var seen = Set<EventID>()
        var dayNames = Set<String>()
        defer { names.withLock { $0.formUnion(dayNames) } }
        for segment in try reader.layout.eventSegments() {
            if interruption.isRequested { throw CancellationError() }
            let days = segment.day.daysSinceEpoch
            let lookback = days < first
            if lookback, needs.lookbackNames.isEmpty { continue }
            if days > last { break }
            if segment.day != day {
                if let day { evaluation.dayFinished(day) }
                day = segment.day
                seen.removeAll(keepingCapacity: true)
            }
            let report = try reader.forEachEvent(inSegment: segment) { event in
                let early = event.occurredAt < needs.from
                if early || lookback {
                    guard needs.lookbackNames.contains(event.name) else { return }
                } else if let names = needs.names, !names.contains(event.name),
                    !needs.lookbackNames.contains(event.name)
                {
                    return
                }
                guard seen.insert(event.eventID).inserted else { return }
                if !early { dayNames.insert(event.name) }
                evaluation.consume(event)
            }
            problems.withLock { $0 += report.unreadableLines.count + report.tornLines }
        }
        if let day { evaluation.dayFinished(day) }
    }
}
