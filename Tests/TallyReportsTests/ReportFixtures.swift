import TallyCore
import TallyReports

/// Events held in memory, as a store a report reads: each `event_id` once, in the order given.
struct InMemoryReportSource: ReportEventSource {
    var events: [EventEnvelope]
    var records: [EventEnvelope] = []

    func identities() async throws -> IdentityResolver {
        var resolver = IdentityResolver()
        for record in records { resolver.add(record) }
        return resolver
    }

    func feed(_ needs: EventNeeds, into evaluation: inout any ReportEvaluation) async throws {
        var seen = Set<EventID>()
        for event in events where seen.insert(event.eventID).inserted { evaluation.consume(event) }
    }
}

enum ReportFixtures {
    static let base = Timestamp(rfc3339: "2026-11-02T00:00:00Z")!
    static let second: Int64 = 1_000_000_000
    static let minute: Int64 = 60 * second
    static let hour: Int64 = 60 * minute
    static let day: Int64 = 24 * hour
    static let counter = Locked<UInt64>(0)

    /// An event `offset` nanoseconds after ``base``.
    static func event(
        _ name: String,
        _ actor: String?,
        at offset: Int64,
        id: UInt64? = nil,
        properties: EventProperties = EventProperties(),
        anonymous: String? = nil
    ) -> EventEnvelope {
        let next = counter.withLock { value -> UInt64 in
            value += 1
            return value
        }
        return EventEnvelope(
            eventID: EventID(high: 0x0190_0000_0000_7000, low: id ?? (0x8000_0000_0000_0000 | next)),
            name: name,
            feature: "test",
            properties: properties,
            occurredAt: base.advanced(byNanoseconds: offset),
            userID: actor,
            anonymousID: anonymous
        )
    }

    static func funnel(
        _ steps: [String],
        window: Int64,
        order: FunnelDefinition.Order = .ordered,
        exclusions: [(String, Int, Int)] = []
    ) -> Report {
        var funnel = FunnelDefinition(steps: steps.map { EventSelector(names: [$0]) }, window: window)
        funnel.order = order
        funnel.exclusions = exclusions.map { .init(event: EventSelector(names: [$0.0]), from: $0.1, to: $0.2) }
        var report = Report(.funnel(funnel))
        report.range = ReportRange(since: .instant(base), until: .instant(base.advanced(byNanoseconds: 7 * day)))
        return report
    }

    static func run(_ report: Report, _ events: [EventEnvelope], records: [EventEnvelope] = []) async throws
        -> ReportResult
    {
        try await ReportRunner.run(report, on: InMemoryReportSource(events: events, records: records)).result
    }

    /// Actors per step of a funnel's answer.
    static func actors(_ result: ReportResult) -> [Int] {
        guard case .funnel(let funnel) = result else { return [] }
        return funnel.steps.map(\.actors)
    }
}
