import TallyCore

/// What a reader of one Segment export shape found: the event rules to import, and refusals for
/// what has no place in a tally plan. ``SegmentPublicAPIPlan``, ``SegmentConfigAPIPlan`` and
/// ``SegmentLocalPlan`` fill it; ``SegmentImporter`` turns its events into plan events.
struct SegmentPlanContents {
    /// One version of one track event.
    struct EventRule {
        /// The event name exactly as Segment has it, which is what its track calls carry (`Order Completed`).
        var name: String
        /// Segment's integer version N as `N-0-0`.
        var version: SchemaVer
        /// What it means, for people (may be empty).
        var description: String
        /// The JSON Schema of the whole message (see ``SegmentMessageSchema``).
        var messageSchema: JSONValue
        /// The rule in the file: `plan.json $.rules[2]`.
        var source: String
        /// The message schema's JSON path in the file: `$.rules[2].jsonSchema`.
        var schemaPath: String
    }

    /// A track event to import, or a rule that cannot be imported.
    enum Entry {
        case event(EventRule)
        case refusal(ImportReport.Refusal)
    }

    /// The plan's name, when the export has one.
    var title: String?
    /// Everything read, in file order (so that refusals are listed in that order too).
    var entries: [Entry] = []

    /// Adds a refusal of what is at `source`.
    mutating func refuse(source: String, reason: String) {
        entries.append(.refusal(.init(source: source, reason: reason)))
    }

    /// Why rules for the other kinds of calls cannot be imported.
    enum CallRules {
        case identify, group, common, page, screen

        var reason: String {
            switch self {
            case .identify, .group:
                "\(self) rules validate traits; tally stores \(self) calls as identity records, which no plan declares"
            case .common:
                "rules for every message have no equivalent in a tally plan (declare what they require in each event)"
            case .page, .screen:
                "\(self) rules describe \(self) calls (of one name when keyed); tally names every \(self) call "
                    + "\"\(self)\", the name a property, with one schema per version, so they cannot be represented "
                    + "soundly: declare a \"\(self)\" event by hand"
            }
        }
    }

    /// Refuses a rule for calls other than track: page and screen rules always (with a plan, tally
    /// refuses the events they describe as unknown), the others when they constrain anything.
    /// `key` is the rule's key, when it has one (a page's name).
    mutating func refuse(_ kind: CallRules, schema: JSONValue, source: String, key: String? = nil) {
        if kind == .page || kind == .screen || !SegmentMessageSchema.isUnconstrained(schema) {
            let named = key.map { "\($0.debugDescription): " } ?? ""
            refuse(source: source, reason: named + kind.reason)
        }
    }

    /// Reads the rules for other calls next to `events` in the Config API's `rules` object and in
    /// local plans: `global`, `identify` and `group` (message schemas), `identify_traits` and
    /// `group_traits` (lists of traits).
    mutating func readCallRules(of rules: JSONValue, path: String, file: String) {
        for (key, kind) in [("global", CallRules.common), ("identify", .identify), ("group", .group)] {
            if let schema = rules[key] { refuse(kind, schema: schema, source: "\(file) \(path).\(key)") }
        }
        for (key, kind) in [("identify_traits", CallRules.identify), ("group_traits", .group)] {
            guard case .array(let traits)? = rules[key] else { continue }
            for (index, trait) in traits.enumerated() {
                refuse(kind, schema: trait, source: "\(file) \(path).\(key)[\(index)]", key: trait["name"]?.stringValue)
            }
        }
    }

    /// Reads one `{"name", "description"?, "version"?, "rules"}` event: the Config API's and the
    /// local plans' spelling (`rules` is the message schema).
    mutating func readEvent(_ value: JSONValue, file: String, path: String) {
        let source = "\(file) \(path)"
        guard let name = value["name"]?.stringValue, !name.isEmpty else {
            refuse(source: source, reason: "an event needs its name")
            return
        }
        guard let version = Self.version(value["version"]) else {
            refuse(source: source, reason: "\(name.debugDescription): version must be a whole number from 1")
            return
        }
        guard let rules = value["rules"] else {
            refuse(source: source, reason: "\(name.debugDescription) has no rules (the message's JSON Schema)")
            return
        }
        entries.append(
            .event(
                EventRule(
                    name: name,
                    version: version,
                    description: value["description"]?.stringValue ?? rules["description"]?.stringValue ?? "",
                    messageSchema: rules,
                    source: source,
                    schemaPath: "\(path).rules"
                )
            )
        )
    }

    /// Segment's integer `version` N as SchemaVer `N-0-0`; `1-0-0` when absent; nil when it is not
    /// a whole number from 1 (up to 999999, the largest MODEL a plan file can spell).
    static func version(_ value: JSONValue?) -> SchemaVer? {
        guard let value else { return SchemaVer(model: 1, revision: 0, addition: 0) }
        guard case .number(let number) = value, let model = number.int64Value, model >= 1, model <= 999_999 else {
            return nil
        }
        return SchemaVer(model: Int(model), revision: 0, addition: 0)
    }
}
