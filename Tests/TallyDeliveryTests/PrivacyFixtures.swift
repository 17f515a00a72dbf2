import TallyCore
import TallySchema

/// Tracking plans for the privacy tests, parsed in memory.
enum PrivacyFixtures {
    struct PlanProblems: Error {
        var problems: [SchemaError]
    }

    /// A registry of one `shop` plan with `events` (JSON text of the events array's members).
    static func registry(_ events: String) throws -> SchemaRegistry {
        let text = #"{"feature": "shop", "description": "A shop.", "naming": "as_sent", "events": [\#(events)]}"#
        var problems: [SchemaError] = []
        guard let plan = TrackingPlanParser().parse(try JSONParser.parse(text), file: nil, problems: &problems) else {
            throw PlanProblems(problems: problems)
        }
        return try SchemaRegistry(plans: [plan])
    }

    static func event(
        _ name: String,
        _ properties: [String: PropertyValue] = [:],
        userID: String? = nil,
        anonymousID: String? = "install-1",
        kind: EventKind = .track
    ) -> EventEnvelope {
        var ids = UUIDv7Generator()
        return EventEnvelope(
            eventID: ids.next(at: .now()),
            name: name,
            feature: "shop",
            properties: EventProperties(properties),
            occurredAt: .now(),
            userID: userID,
            anonymousID: anonymousID,
            kind: kind
        )
    }
}
