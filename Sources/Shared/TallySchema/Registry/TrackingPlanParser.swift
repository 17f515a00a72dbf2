public import TallyCore

/// Reads one tracking-plan document, collecting every problem instead of stopping at the first.
///
/// ```json
/// { "feature": "episode", "description": "…", "screens": ["episode_list"],
///   "events": [ { "name": "episode_list_viewed", "version": "1-0-0", "description": "…",
///                 "properties": { "type": "object", "properties": {}, "additionalProperties": false } } ] }
/// ```
///
/// Two settings say what kind of plan it is (defaults: a plan for `Tracking` features):
/// - `"naming"`: `"screen_action"` (default; event names are lowercase `{screen}_{action}` with a
///   declared screen) or `"as_sent"` (names are kept as the source spells them, `Order Completed`;
///   `screens` is optional). Imported plans use `as_sent`.
/// - `"normalize_strings"`: `true` (default) reads string values as the declared type (`"1"`
///   satisfies `integer` and is stored as `1`), for producers that can only send strings;
///   `false` validates with plain JSON Schema semantics. Imported plans use `false`.
public struct TrackingPlanParser: Sendable {
    static let planKeys: Set<String> = [
        "$schema", "feature", "description", "screens", "events", "naming", "normalize_strings",
    ]
    static let eventKeys: Set<String> = ["name", "version", "description", "properties", sampleRateKey]
    /// `"x-tally-sample-rate": 0 < rate <= 1` on an event: the share of users whose events of
    /// this kind the device sends (decided per user, so a kept user's funnel stays whole).
    static let sampleRateKey = "x-tally-sample-rate"

    /// Creates a parser.
    public init() {}

    /// Parses `value` (from `file`); returns the plan, or nil with `problems` filled.
    public func parse(_ value: JSONValue, file: String?, problems: inout [SchemaError]) -> TrackingPlan? {
        let before = problems.count
        func problem(_ code: SchemaError.Code, _ path: String, _ message: String) {
            problems.append(SchemaError(code, file: file, path: path, message: message))
        }
        guard let members = value.objectMembers else {
            problem(.malformedFile, "$", "a tracking plan must be a JSON object")
            return nil
        }
        for member in members where !Self.planKeys.contains(member.key) {
            problem(.unsupportedKeyword, "$.\(member.key)", "unknown key (expected \(Self.planKeys.sorted()))")
        }
        let feature = value["feature"]?.stringValue ?? ""
        if value["feature"] == nil {
            problem(.missingField, "$.feature", "required")
        } else if !NamingRules.isSnakeCase(feature) {
            problem(.invalidName, "$.feature", "feature \(feature.debugDescription) must be lowercase snake_case")
        }
        guard let description = value["description"]?.stringValue, !description.isEmpty else {
            problem(.missingField, "$.description", "a plan needs a description")
            return nil
        }
        let naming: EventNaming
        switch value["naming"] {
        case nil: naming = .screenAction
        case .string(let text)? where EventNaming(rawValue: text) != nil: naming = EventNaming(rawValue: text)!
        default:
            naming = .screenAction
            problem(.invalidKeyword, "$.naming", "must be \"screen_action\" or \"as_sent\"")
        }
        var normalizeStrings = true
        switch value["normalize_strings"] {
        case nil: break
        case .bool(let flag)?: normalizeStrings = flag
        default: problem(.invalidKeyword, "$.normalize_strings", "must be true or false")
        }
        var screens: [String] = []
        if naming == .asSent, value["screens"] == nil {
            // Names as sent: screens are optional.
        } else if case .array(let list)? = value["screens"], !list.isEmpty {
            for (index, screen) in list.enumerated() {
                guard let name = screen.stringValue, NamingRules.isSnakeCase(name) else {
                    problem(.invalidName, "$.screens[\(index)]", "screen names must be lowercase snake_case")
                    continue
                }
                if screens.contains(name) { problem(.duplicateEvent, "$.screens[\(index)]", "screen listed twice") }
                screens.append(name)
            }
        } else {
            problem(.missingField, "$.screens", "a non-empty list of screen names is required")
        }
        var events: [EventSchema] = []
        if case .array(let list)? = value["events"] {
            for (index, event) in list.enumerated() {
                if let parsed = parseEvent(
                    event,
                    path: "$.events[\(index)]",
                    feature: feature,
                    screens: screens,
                    naming: naming,
                    normalizeStrings: normalizeStrings,
                    file: file,
                    problems: &problems
                ) {
                    events.append(parsed)
                }
            }
        } else {
            problem(.missingField, "$.events", "a list of events is required")
        }
        guard problems.count == before else { return nil }
        return TrackingPlan(
            feature: feature,
            description: description,
            screens: screens,
            events: events,
            naming: naming,
            normalizeStrings: normalizeStrings,
            file: file,
            source: value
        )
    }

    private func parseEvent(
        _ value: JSONValue,
        path: String,
        feature: String,
        screens: [String],
        naming: EventNaming,
        normalizeStrings: Bool,
        file: String?,
        problems: inout [SchemaError]
    ) -> EventSchema? {
        let before = problems.count
        func problem(_ code: SchemaError.Code, _ subpath: String, _ message: String) {
            problems.append(SchemaError(code, file: file, path: path + subpath, message: message))
        }
        guard let members = value.objectMembers else {
            problem(.malformedFile, "", "an event must be an object")
            return nil
        }
        for member in members where !Self.eventKeys.contains(member.key) {
            problem(.unsupportedKeyword, ".\(member.key)", "unknown key (expected \(Self.eventKeys.sorted()))")
        }
        let name = value["name"]?.stringValue ?? ""
        var screen = ""
        if naming == .asSent {
            if let problem = NamingRules.problemWithSentName(name) {
                problems.append(SchemaError(.invalidName, file: file, path: path + ".name", message: problem))
            }
        } else if !NamingRules.isSnakeCase(name) {
            problem(.invalidName, ".name", "event name \(name.debugDescription) must be lowercase snake_case")
        } else if let match = NamingRules.screen(of: name, among: screens) {
            screen = match
        } else {
            problem(.unknownScreen, ".name", "\(name) must be {screen}_{action} with a screen of \(screens)")
        }
        let versionText = value["version"]?.stringValue ?? ""
        let version = SchemaVer(versionText)
        if version == nil {
            problem(.invalidVersion, ".version", "\(versionText.debugDescription) is not a SchemaVer like 1-0-0")
        }
        let description = value["description"]?.stringValue ?? ""
        if description.isEmpty { problem(.missingField, ".description", "every event needs a description") }
        let sampleRate = parseSampleRate(value[Self.sampleRateKey], path: path, file: file, problems: &problems)
        var schema: JSONSchema?
        var personalData: [PersonalDataRule] = []
        if let properties = value["properties"] {
            let compiled = SchemaCompiler(tallyKeywords: true).compileMarkingPersonalData(
                properties,
                path: path + ".properties"
            )
            if let compiledSchema = compiled.schema {
                if compiled.problems.isEmpty { schema = compiledSchema }
                checkPropertySchema(compiledSchema, path: path + ".properties", file: file, problems: &problems)
                var collector = PersonalDataCollector(marks: compiled.personalData, file: file)
                collector.collect(from: compiledSchema)
                personalData = collector.rules
                problems += collector.problems
            }
            problems += compiled.problems.map { error in
                var located = error
                located.file = file
                return located
            }
        } else {
            problem(.missingField, ".properties", "required (an object schema; {} properties for none)")
        }
        guard problems.count == before, let version, let schema else { return nil }
        return EventSchema(
            name: name,
            feature: feature,
            screen: screen,
            version: version,
            description: description,
            properties: schema,
            normalizesStrings: normalizeStrings,
            file: file,
            path: path,
            personalData: personalData,
            sampleRate: sampleRate
        )
    }

    /// `x-tally-sample-rate`: a number, 0 < rate <= 1; 1 (or absent) is no sampling.
    private func parseSampleRate(_ value: JSONValue?, path: String, file: String?, problems: inout [SchemaError])
        -> Double?
    {
        guard let value else { return nil }
        guard case .number(let number) = value, let rate = Double(number.text), rate > 0, rate <= 1 else {
            problems.append(
                SchemaError(
                    .invalidKeyword,
                    file: file,
                    path: path + "." + Self.sampleRateKey,
                    message: "must be a number greater than 0 and at most 1 (0.1: one user in ten)"
                )
            )
            return nil
        }
        return rate < 1 ? rate : nil
    }

    /// Properties are an object schema; each declared property may be any schema (nested objects,
    /// arrays, type lists). Keys are checked for length and for names that collide.
    private func checkPropertySchema(_ schema: JSONSchema, path: String, file: String?, problems: inout [SchemaError]) {
        if schema.types != [.object] {
            problems.append(
                SchemaError(.invalidKeyword, file: file, path: path + ".type", message: "must be \"object\"")
            )
        }
        var keys: [String: String] = [:]
        for (name, _) in schema.properties {
            let propertyPath = "\(path).properties.\(name)"
            if name.isEmpty || name.utf8.count > 256 {
                problems.append(SchemaError(.invalidName, file: file, path: propertyPath, message: "1 to 256 bytes"))
            }
            let key = NamingRules.collisionKey(name)
            if let other = keys[key], !key.isEmpty {
                problems.append(
                    SchemaError(.nameCollision, file: file, path: propertyPath, message: "collides with \(other)")
                )
            }
            keys[key] = name
        }
        // Declared as written: a property whose own schema has a problem (reported at its path)
        // is still declared.
        let declared = Set(schema.source["properties"]?.objectMembers?.map(\.key) ?? [])
        for name in schema.required where !declared.contains(name) {
            problems.append(
                SchemaError(.invalidKeyword, file: file, path: path + ".required", message: "\(name) is not declared")
            )
        }
    }
}
