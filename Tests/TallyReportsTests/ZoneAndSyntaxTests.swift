import TallyCore
import TallyReports
import Testing

@Suite("Report zones and syntax")
struct ZoneAndSyntaxTests {
    @Test("days follow the clocks: 23 and 25 hours in Paris, half-hour starts in Kolkata")
    func zoneBuckets() throws {
        let paris = try ReportZone("Europe/Paris")
        let spring = paris.boundaries(
            .day,
            since: Timestamp(rfc3339: "2026-03-28T12:00:00Z")!,
            until: Timestamp(rfc3339: "2026-03-30T12:00:00Z")!
        )
        #expect(
            spring.map(paris.label) == [
                "2026-03-28T00:00:00+01:00", "2026-03-29T00:00:00+01:00", "2026-03-30T00:00:00+02:00",
                "2026-03-31T00:00:00+02:00",
            ]
        )
        #expect(spring[2].nanosecondsSinceEpoch - spring[1].nanosecondsSinceEpoch == 23 * 3_600_000_000_000)
        let autumn = paris.boundaries(
            .hour,
            since: Timestamp(rfc3339: "2026-10-25T00:00:00Z")!,
            until: Timestamp(rfc3339: "2026-10-25T02:00:00Z")!
        )
        #expect(
            autumn.map(paris.label) == [
                "2026-10-25T02:00:00+02:00", "2026-10-25T02:00:00+01:00", "2026-10-25T03:00:00+01:00",
            ]
        )
        let kolkata = try ReportZone("Asia/Kolkata")
        let days = kolkata.boundaries(
            .day,
            since: Timestamp(rfc3339: "2026-11-01T00:00:00Z")!,
            until: Timestamp(rfc3339: "2026-11-02T00:00:00Z")!
        )
        #expect(
            days.map { $0.rfc3339 } == [
                "2026-10-31T18:30:00.000000Z", "2026-11-01T18:30:00.000000Z", "2026-11-02T18:30:00.000000Z",
            ]
        )
        let weeks = ReportZone.utc.boundaries(
            .week,
            since: Timestamp(rfc3339: "2026-11-04T00:00:00Z")!,
            until: Timestamp(rfc3339: "2026-11-05T00:00:00Z")!
        )
        #expect(weeks.map(ReportZone.utc.label) == ["2026-11-02T00:00:00+00:00", "2026-11-09T00:00:00+00:00"])
        #expect(throws: ReportError.self) { try ReportZone("Mars/Olympus") }
    }

    @Test("selectors and filters parse from the command line's syntax")
    func syntax() throws {
        let selector = try SelectorSyntax.selector("a|'Order Completed' where position < 3 and plan in (pro, 'team x')")
        #expect(selector.names == ["a", "Order Completed"])
        #expect(
            selector.filters.map(\.description) == ["properties.position < 3", "properties.plan in (pro, 'team x')"]
        )
        let set = try SelectorSyntax.filters("context.app_version is not set and coupon is set and name != x")
        #expect(set.map(\.op) == [.isNotSet, .isSet, .notEquals])
        #expect(set[0].field == .context("app_version"))
        for bad in ["a where", "a where x ~ 1", "a where x < abc", "where x = 1", "a where x in 1", "a where 'x = 1"] {
            #expect(throws: ReportError.self, "\(bad)") { try SelectorSyntax.selector(bad) }
        }
        let exclusion = try SelectorSyntax.exclusion("search_viewed where q is set between 1 and 3")
        #expect(exclusion.from == 1 && exclusion.to == 3 && exclusion.event.names == ["search_viewed"])
    }

    @Test("filters compare as the docs say: numbers as decimals, unset matches !=")
    func filterMatching() throws {
        let event = EventEnvelope(
            eventID: EventID(high: 1, low: 1),
            name: "x",
            properties: ["n": 1, "s": "1", "b": true, "price": 25.5],
            occurredAt: Timestamp(nanosecondsSinceEpoch: 0)
        )
        func matches(_ text: String) throws -> Bool {
            try SelectorSyntax.filters(text).allSatisfy { $0.matches(event) }
        }
        #expect(try matches("n = 1.0"))
        #expect(try matches("s = 1"))
        #expect(try matches("b = true"))
        #expect(try matches("price > 25.49 and price <= 25.5"))
        #expect(try !matches("s > 0"), "a string is not a number")
        #expect(try matches("missing != 3"))
        #expect(try !matches("missing = 3"))
        #expect(try matches("missing not in (1, 2)"))
        #expect(try matches("name contains x"))
    }

    @Test("a NUL character anywhere in a definition is refused: no store holds one")
    func nulIsRefused() throws {
        let named = Report(.trends(TrendsDefinition(events: [EventSelector(names: ["a\u{0}b"])])))
        #expect(throws: ReportError.self) { try named.validate() }
        var filtered = Report(.trends(TrendsDefinition(events: [EventSelector(names: ["player_opened"])])))
        try filtered.validate()
        filtered.filters = try SelectorSyntax.filters("screen = 'x\u{0}'")
        #expect(throws: ReportError.self) { try filtered.validate() }
    }
}
