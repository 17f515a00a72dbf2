import TallyCore

/// A tracking plan from Segment's Config API (the older API, `GET /v1beta/workspaces/{workspace}/
/// tracking-plans/{rs_id}`):
///
/// ```json
/// { "name": "workspaces/acme/tracking-plans/rs_123", "display_name": "Kicks App",
///   "rules": { "events": [ { "name": "Order Completed", "description": "…", "version": 1,
///                            "rules": { "$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
///                                       "properties": { "context": {}, "traits": {}, "properties": { … } } } } ],
///              "global": { … }, "identify": { … }, "group": { … }, "identify_traits": [], "group_traits": [] },
///   "create_time": "…", "update_time": "…" }
/// ```
///
/// (The Config API's Get Tracking Plan sample; https://docs.segmentapis.com/tag/Tracking-Plans maps
/// its `display_name` to the Public API's `name`.) Each event is a version of a track event
/// (`version` N, 1 when absent); `global`, `identify`, `group` and the trait lists are refused
/// when they constrain anything.
struct SegmentConfigAPIPlan {
    /// What the export holds.
    let contents: SegmentPlanContents

    /// Reads `document`; nil when it is not this shape (no `rules` object).
    init?(_ document: JSONValue, file: String) {
        guard let rules = document["rules"], rules.objectMembers != nil else { return nil }
        var contents = SegmentPlanContents()
        // `name` is the plan's resource path here; `display_name` is what people call it.
        contents.title = document["display_name"]?.stringValue ?? document["name"]?.stringValue
        switch rules["events"] {
        case .array(let events)?:
            for (index, event) in events.enumerated() {
                contents.readEvent(event, file: file, path: "$.rules.events[\(index)]")
            }
        case nil, .null?: break
        case .some: contents.refuse(source: "\(file) $.rules.events", reason: "not a list of events")
        }
        contents.readCallRules(of: rules, path: "$.rules", file: file)
        self.contents = contents
    }
}
