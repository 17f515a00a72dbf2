import TallyCore

/// tally's own `tally` feature: the events tally itself sends (an app outbox's
/// `outbox_diagnostics`, the app SDK's session and lifecycle events). Every registry knows them
/// unless one of its plans declares feature `tally`, so a collector with any registry accepts
/// them; they are not in ``SchemaRegistry/plans`` (lint and reports list the user's plans only).
enum BuiltinPlan {
    static let feature = "tally"

    /// The plan's event versions, parsed once: tally's snake_case events, and the lifecycle events
    /// named as Segment names them (a plan of its own: names as sent).
    static let events: [EventSchema] = [text, lifecycleText].flatMap { text in
        var problems: [SchemaError] = []
        let value = try! JSONParser.parse(Array(text.utf8))
        let plan = TrackingPlanParser().parse(value, file: "(built in)", problems: &problems)
        precondition(problems.isEmpty && plan != nil, "the built-in tally plan is invalid: \(problems)")
        return plan?.events ?? []
    }

    static let text = """
        {
          "feature": "tally",
          "description": "Events tally itself sends.",
          "screens": ["outbox", "session"],
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
                  "dropped_by_hooks": { "type": "integer", "minimum": 0 },
                  "sampled_out": { "type": "integer", "minimum": 0 },
                  "outbox_id": { "type": "string", "minLength": 1 }
                },
                "required": ["dropped_queue", "dropped_caps", "dropped_disk_full", "corrupt_files", "corrupt_events",
                             "dead_lettered_events", "outbox_id"]
              }
            },
            {
              "name": "session_started",
              "version": "1-0-0",
              "description": "An app session began (its session_id is the event's).",
              "properties": { "type": "object" }
            },
            {
              "name": "session_ended",
              "version": "1-0-0",
              "description": "An app session ended (idle timeout, maximum length or logout), at its last activity.",
              "properties": {
                "type": "object",
                "properties": { "duration_ms": { "type": "integer", "minimum": 0 } },
                "required": ["duration_ms"]
              }
            }
          ]
        }
        """

    /// The application lifecycle events of the app SDK, with Segment's names and properties.
    static let lifecycleText = """
        {
          "feature": "tally",
          "description": "Application lifecycle events tally's app SDK sends, named as Segment names them.",
          "naming": "as_sent",
          "normalize_strings": false,
          "events": [
            {
              "name": "Application Installed",
              "version": "1-0-0",
              "description": "The first launch of an install.",
              "properties": {
                "type": "object",
                "properties": { "version": { "type": "string" }, "build": { "type": "string" } }
              }
            },
            {
              "name": "Application Updated",
              "version": "1-0-0",
              "description": "A launch with another version or build than the previous launch.",
              "properties": {
                "type": "object",
                "properties": {
                  "version": { "type": "string" }, "build": { "type": "string" },
                  "previous_version": { "type": "string" }, "previous_build": { "type": "string" }
                }
              }
            },
            {
              "name": "Application Opened",
              "version": "1-0-0",
              "description": "A launch.",
              "properties": {
                "type": "object",
                "properties": {
                  "from_background": { "type": "boolean" }, "version": { "type": "string" },
                  "build": { "type": "string" }
                }
              }
            },
            {
              "name": "Application Backgrounded",
              "version": "1-0-0",
              "description": "The app went to the background.",
              "properties": { "type": "object" }
            },
            {
              "name": "Application Foregrounded",
              "version": "1-0-0",
              "description": "The app came back to the foreground.",
              "properties": {
                "type": "object",
                "properties": { "version": { "type": "string" }, "build": { "type": "string" } }
              }
            }
          ]
        }
        """
}
