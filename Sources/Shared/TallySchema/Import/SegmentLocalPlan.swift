import TallyCore

/// A Segment tracking plan kept as a local file, the 2018 format typewriter read with
/// `--inputPath` (segmentio/typewriter f1b3a90, `src/lib/fetchPlan.ts`; its
/// `examples/local-tracking-plans` and `tests/__fixtures__/tracking-plan-fixture.json`):
///
/// ```json
/// { "name": "Kicks App",
///   "events": [ { "name": "Order Completed", "description": "…",
///                 "rules": { "$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
///                            "properties": { "context": {}, "traits": {}, "properties": { … } },
///                            "required": ["properties"] } } ],
///   "identify_traits": [], "group_traits": null }
/// ```
///
/// `rules` is the schema of the whole message in every real example (typewriter validated
/// `rules.properties.properties`), so it is read as one; a schema that does not describe a message
/// is refused rather than guessed at. Events have no version (1-0-0, or `version` N when present).
/// The Config API's `rules` object on its own (`{"events": [...], "global": …}`, as Terraform
/// providers keep it) has the same shape and is read the same way.
struct SegmentLocalPlan {
    /// What the file holds.
    let contents: SegmentPlanContents

    /// Reads `document`; nil when it is not this shape (no `events` list).
    init?(_ document: JSONValue, file: String) {
        guard case .array(let events)? = document["events"] else { return nil }
        var contents = SegmentPlanContents()
        contents.title = document["name"]?.stringValue ?? document["display_name"]?.stringValue
        for (index, event) in events.enumerated() {
            contents.readEvent(event, file: file, path: "$.events[\(index)]")
        }
        contents.readCallRules(of: document, path: "$", file: file)
        self.contents = contents
    }
}
