public import TallyCore

/// Reads one tracking-plan document, collecting every problem instead of stopping at the first.
///
/// ```json
/// { "feature": "episode", "description": "…", "screens": ["episode_list"],
///   "events": [ { "name": "episode_list_viewed", "version": "1-0-0", "description": "…",
///                 "properties": { "type": "object", "properties": {}, "additionalProperties": false } } ] }
/// ```
public struct TrackingPlanParser: Sendable {
    static let planKeys: Set<String> = ["$schema", "feature", "description", "screens", "events"]
    static let eventKeys: Set<String> = ["name", "version", "description", "properties"]
    static let scalarTypes: Set<JSONSchema.JSONType> = [.string, .integer, .number, .boolean]

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
        var screens: [String] = []
        if case .array(let list)? = value["screens"], !list.isEmpty {
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
            file: file,
            source: value
        )
    }

    private func parseEvent(
        _ value: JSONValue,
        path: String,
        feature: String,
        screens: [String],
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
        if !NamingRules.isSnakeCase(name) {
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
        var schema: JSONSchema?
        if let properties = value["properties"] {
            let compiled = SchemaCompiler().compileReportingAll(properties, path: path + ".properties")
            if let compiledSchema = compiled.schema {
                if compiled.problems.isEmpty { schema = compiledSchema }
                checkPropertySchema(compiledSchema, path: path + ".properties", file: file, problems: &problems)
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
            file: file,
            path: path
        )
    }

    /// Properties are a flat object of declared scalars: types are declared, never inferred.
    private func checkPropertySchema(_ schema: JSONSchema, path: String, file: String?, problems: inout [SchemaError]) {
        if schema.types != [.object] {
            problems.append(
                SchemaError(.invalidKeyword, file: file, path: path + ".type", message: "must be \"object\"")
            )
        }
        var keys: [String: String] = [:]
        for (name, property) in schema.properties {
            let propertyPath = "\(path).properties.\(name)"
            if name.isEmpty || name.utf8.count > 256 {
                problems.append(SchemaError(.invalidName, file: file, path: propertyPath, message: "1 to 256 bytes"))
            }
            let key = NamingRules.collisionKey(name)
            if let other = keys[key] {
                problems.append(
                    SchemaError(.nameCollision, file: file, path: propertyPath, message: "collides with \(other)")
                )
            }
            keys[key] = name
            guard let types = property.types, !types.subtracting([.null]).isEmpty,
                types.subtracting([.null]).count == 1, types.subtracting([.null]).isSubset(of: Self.scalarTypes)
            else {
                problems.append(
                    SchemaError(
                        .invalidKeyword,
                        file: file,
                        path: propertyPath + ".type",
                        message: "declare exactly one of string, integer, number, boolean (optionally with null)"
                    )
                )
                continue
            }
            if !property.properties.isEmpty || !property.required.isEmpty {
                problems.append(
                    SchemaError(.invalidKeyword, file: file, path: propertyPath, message: "properties are scalars")
                )
            }
        }
        for name in schema.required where schema.property(name) == nil {
            problems.append(
                SchemaError(.invalidKeyword, file: file, path: path + ".required", message: "\(name) is not declared")
            )
        }
    }
}
