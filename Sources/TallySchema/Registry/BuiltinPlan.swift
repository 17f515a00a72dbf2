import TallyCore

/// tally's own `tally` feature: the events tally itself sends (an app outbox's
/// `outbox_diagnostics`). Every registry knows them unless one of its plans declares feature
/// `tally`, so a collector with any registry accepts them; they are not in ``SchemaRegistry/plans``
/// (lint and reports list the user's plans only).
enum BuiltinPlan {
    static let feature = "tally"

    /// The plan's event versions, parsed once.
    static let events: [EventSchema] = {
        var problems: [SchemaError] = []
        let value = try! JSONParser.parse(Array(text.utf8))
        let plan = TrackingPlanParser().parse(value, file: "(built in)", problems: &problems)
        precondition(problems.isEmpty && plan != nil, "the built-in tally plan is invalid: \(problems)")
        return plan?.events ?? []
    }()

    static let text = """
        {
          "feature": "tally",
          "description": "Events tally itself sends.",
          "screens": ["outbox"],
          "normalize_strings": false,
          "events": [
            {
              "name": "outbox_diagnostics",
              "version": "1-0-0",
              "description": "What an app's outbox lost since its previous report (deltas), and which outbox it is.",
              "properties": {
                "type": "object",
                "properties": {
                  "dropped_queue": { "type": "integer", "minimum": 0 },
                  "dropped_caps": { "type": "integer", "minimum": 0 },
                  "dropped_disk_full": { "type": "integer", "minimum": 0 },
                  "corrupt_files": { "type": "integer", "minimum": 0 },
                  "corrupt_events": { "type": "integer", "minimum": 0 },
                  "dead_lettered_events": { "type": "integer", "minimum": 0 },
                  "outbox_id": { "type": "string", "minLength": 1 }
                },
                "required": ["dropped_queue", "dropped_caps", "dropped_disk_full", "corrupt_files", "corrupt_events",
                             "dead_lettered_events", "outbox_id"]
              }
            }
          ]
        }
        """
}
