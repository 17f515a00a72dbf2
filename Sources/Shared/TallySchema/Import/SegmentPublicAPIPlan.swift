import TallyCore

/// A Segment Public API export of a tracking plan's rules: the body of
/// `GET /tracking-plans/{id}/rules` (`{"data": {"rules": [...], "pagination": {...}}}`) or its
/// `rules` alone (`{"rules": [...]}`, as `PUT …/rules` takes them).
///
/// Each rule is `{"type", "key"?, "version", "jsonSchema", "createdAt"?, "updatedAt"?,
/// "deprecatedAt"?}` with `type` one of `TRACK`, `IDENTIFY`, `GROUP`, `PAGE`, `SCREEN`, `COMMON`
/// (segmentio/public-api-sdk-typescript `model/ruleV1.ts` and
/// `model/listRulesFromTrackingPlanV1Output.ts`; https://docs.segmentapis.com/tag/Tracking-Plans).
/// A `TRACK` rule's `key` is the event name its calls carry and `jsonSchema` the message schema;
/// several versions of one key are several rules.
struct SegmentPublicAPIPlan {
    /// What the export holds.
    let contents: SegmentPlanContents

    /// Reads `document`; nil when it is not this shape (no `rules` or `data.rules` list).
    init?(_ document: JSONValue, file: String) {
        let rulesPath: String
        let rules: [JSONValue]
        if case .array(let list)? = document["rules"] {
            (rulesPath, rules) = ("$.rules", list)
        } else if case .array(let list)? = document["data"]?["rules"] {
            (rulesPath, rules) = ("$.data.rules", list)
        } else {
            return nil
        }
        var contents = SegmentPlanContents()
        // The rules endpoint has no plan name; a document that adds one (`name`) is welcome.
        contents.title = document["name"]?.stringValue ?? document["data"]?["name"]?.stringValue
        for (index, rule) in rules.enumerated() {
            Self.read(rule, path: "\(rulesPath)[\(index)]", file: file, into: &contents)
        }
        self.contents = contents
    }

    private static func read(_ rule: JSONValue, path: String, file: String, into contents: inout SegmentPlanContents) {
        let source = "\(file) \(path)"
        let schema = rule["jsonSchema"] ?? .null
        let key = rule["key"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        switch rule["type"]?.stringValue {
        case "TRACK":
            guard let key else {
                contents.refuse(source: source, reason: "a TRACK rule needs its key (the event name)")
                return
            }
            guard let version = SegmentPlanContents.version(rule["version"]) else {
                contents.refuse(
                    source: source,
                    reason: "\(key.debugDescription): version must be a whole number from 1"
                )
                return
            }
            var description = schema["description"]?.stringValue ?? ""
            if let deprecated = rule["deprecatedAt"]?.stringValue {
                // Still a version that events may carry; say so instead of leaving it out.
                description += (description.isEmpty ? "" : " ") + "(Deprecated in Segment on \(deprecated).)"
            }
            let event = SegmentPlanContents.EventRule(
                name: key,
                version: version,
                description: description,
                messageSchema: schema,
                source: source,
                schemaPath: "\(path).jsonSchema"
            )
            contents.entries.append(.event(event))
        case "IDENTIFY": contents.refuse(.identify, schema: schema, source: source, key: key)
        case "GROUP": contents.refuse(.group, schema: schema, source: source, key: key)
        case "COMMON": contents.refuse(.common, schema: schema, source: source, key: key)
        case "PAGE": contents.refuse(.page, schema: schema, source: source, key: key)
        case "SCREEN": contents.refuse(.screen, schema: schema, source: source, key: key)
        case let other:
            let type = other.map { $0.debugDescription } ?? "missing"
            contents.refuse(
                source: source,
                reason: "rule type \(type) is not one of TRACK, IDENTIFY, GROUP, PAGE, SCREEN, COMMON"
            )
        }
    }
}
