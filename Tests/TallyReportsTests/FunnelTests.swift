import TallyCore
import TallyReports
import Testing

/// Funnels against hand-counted cases of docs/reports.md's definitions.
@Suite("Funnels")
struct FunnelTests {
    typealias F = ReportFixtures

    @Test("the window's end is inclusive: exactly W converts, one microsecond more does not")
    func windowBoundary() async throws {
        let report = F.funnel(["a", "b"], window: F.hour)
        let exact = [F.event("a", "u1", at: 0), F.event("b", "u1", at: F.hour)]
        #expect(F.actors(try await F.run(report, exact)) == [1, 1])
        let late = [F.event("a", "u1", at: 0), F.event("b", "u1", at: F.hour + 1_000)]
        #expect(F.actors(try await F.run(report, late)) == [1, 0])
    }

    @Test("equal times chain in any order, but one event is one step")
    func ties() async throws {
        let report = F.funnel(["a", "b", "c"], window: F.hour)
        // b and a at the same instant, b's id first: still a chain a → b.
        let tie = [F.event("b", "u1", at: 10, id: 1), F.event("a", "u1", at: 10, id: 2), F.event("c", "u1", at: 20)]
        #expect(F.actors(try await F.run(report, tie)) == [1, 1, 1])
        // One event matching steps 1 and 2 (a|b as both) cannot be both.
        var selectors = FunnelDefinition(
            steps: [EventSelector(names: ["x"]), EventSelector(names: ["x"])],
            window: F.hour
        )
        selectors.order = .ordered
        var twice = Report(.funnel(selectors))
        twice.range = report.range
        #expect(F.actors(try await F.run(twice, [F.event("x", "u1", at: 0)])) == [1, 0])
        #expect(F.actors(try await F.run(twice, [F.event("x", "u1", at: 0), F.event("x", "u1", at: 0)])) == [1, 1])
    }

    @Test("a later start can convert where the first one's window has passed")
    func laterStart() async throws {
        let report = F.funnel(["a", "b"], window: F.day)
        let events = [
            F.event("a", "u1", at: 0), F.event("a", "u1", at: 3 * F.day), F.event("b", "u1", at: 3 * F.day + F.hour),
        ]
        let result = try await F.run(report, events)
        #expect(F.actors(result) == [1, 1])
        guard case .funnel(let funnel) = result else { return }
        #expect(funnel.steps[1].medianFromPrevious == F.hour, "from the latest start's step 1")
    }

    @Test("strict: another event between two steps breaks the chain")
    func strict() async throws {
        let report = F.funnel(["a", "b"], window: F.hour, order: .strict)
        let broken = [F.event("a", "u1", at: 0), F.event("z", "u1", at: 10), F.event("b", "u1", at: 20)]
        #expect(F.actors(try await F.run(report, broken)) == [1, 0])
        let adjacent = [F.event("a", "u1", at: 0), F.event("b", "u1", at: 20), F.event("z", "u1", at: 30)]
        #expect(F.actors(try await F.run(report, adjacent)) == [1, 1])
        // Equal times are ordered by event id in strict mode.
        let tied = [F.event("b", "u2", at: 5, id: 1), F.event("a", "u2", at: 5, id: 2)]
        #expect(F.actors(try await F.run(report, tied)) == [1, 0])
    }

    @Test("unordered: any k distinct steps within the window, one event each")
    func unordered() async throws {
        let report = F.funnel(["a", "b", "c"], window: F.hour, order: .unordered)
        let events = [F.event("c", "u1", at: 0), F.event("a", "u1", at: 10), F.event("b", "u1", at: 20)]
        #expect(F.actors(try await F.run(report, events)) == [1, 1, 1])
        let spread = [F.event("c", "u2", at: 0), F.event("a", "u2", at: 2 * F.hour)]
        #expect(F.actors(try await F.run(report, spread)) == [1, 0, 0])
    }

    @Test("an exclusion strictly between two steps cuts the chain; at the same time as a step it does not")
    func exclusions() async throws {
        let report = F.funnel(["a", "b", "c"], window: F.day, exclusions: [("x", 1, 2)])
        let cut = [
            F.event("a", "u1", at: 0), F.event("x", "u1", at: 10), F.event("b", "u1", at: 20),
            F.event("c", "u1", at: 30),
        ]
        #expect(F.actors(try await F.run(report, cut)) == [1, 0, 0])
        let atStep = [
            F.event("a", "u1", at: 0), F.event("x", "u1", at: 20), F.event("b", "u1", at: 20),
            F.event("c", "u1", at: 30),
        ]
        #expect(F.actors(try await F.run(report, atStep)) == [1, 1, 1])
        // A new start after the exclusion converts.
        let restart = [
            F.event("a", "u1", at: 0), F.event("x", "u1", at: 10), F.event("a", "u1", at: 15),
            F.event("b", "u1", at: 20),
        ]
        #expect(F.actors(try await F.run(report, restart)) == [1, 1, 0])
    }

    @Test("identity merging: an anonymous id linked to a user is that user before and after the link")
    func merging() async throws {
        let report = F.funnel(["a", "b"], window: F.day)
        let events = [F.event("a", nil, at: 0, anonymous: "anon-1"), F.event("b", "user-1", at: F.hour)]
        let identify = EventEnvelope(
            eventID: EventID(high: 1, low: 1),
            name: "identify",
            occurredAt: F.base.advanced(byNanoseconds: 2 * F.hour),
            userID: "user-1",
            anonymousID: "anon-1",
            kind: .identify
        )
        #expect(F.actors(try await F.run(report, events, records: [identify])) == [1, 1])
        var unmerged = report
        unmerged.mergeIdentities = false
        #expect(F.actors(try await F.run(unmerged, events, records: [identify])) == [1, 0])
    }

    @Test("re-sent copies count once; the first event must be in the range, later ones may not")
    func rangeAndCopies() async throws {
        let report = F.funnel(["a", "b"], window: F.day)
        let a = F.event("a", "u1", at: 7 * F.day - F.hour)
        let events = [a, a, F.event("b", "u1", at: 7 * F.day + F.hour)]
        #expect(F.actors(try await F.run(report, events)) == [1, 1])
        let before = [F.event("a", "u2", at: -F.hour), F.event("b", "u2", at: F.hour)]
        #expect(F.actors(try await F.run(report, before)) == [0, 0])
    }
}
