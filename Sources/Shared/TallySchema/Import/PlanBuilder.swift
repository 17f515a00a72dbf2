import TallyCore

/// Collects imported events per feature and checks each against tally's own rules before it is kept.
///
/// Imported plans keep event names as the source spells them (`"naming": "as_sent"`: the name in
/// the plan must be exactly what the events carry) and validate with plain JSON Schema semantics
/// (`"normalize_strings": false`: the sources never read `"1"` as an integer).
struct PlanBuilder {
    private var features: [String: (description: String, events: [JSONValue])] = [:]
    private var versions: Set<String> = []
    private var collisionOwners: [String: String] = [:]
    private var featureOfName: [String: String] = [:]

    /// Adds an event if it meets tally's rules; returns why not otherwise.
    ///
    /// `propertiesPath` is where `properties` is in the source (`$` for a whole Iglu schema,
    /// `$.rules[2].jsonSchema.properties.properties` in a Segment plan): problems are named by it.
    mutating func add(
        feature: String,
        featureDescription: String,
        name: String,
        version: SchemaVer,
        description: String,
        properties: JSONValue,
        propertiesPath: String = "$"
    ) -> String? {
        guard NamingRules.isSnakeCase(feature) else {
            return "feature \(feature.debugDescription) is not lowercase snake_case"
        }
        if let owner = collisionOwners[NamingRules.collisionKey(name)], owner != name {
            return "event name \(name.debugDescription) collides with \(owner.debugDescription)"
        }
        if let owner = featureOfName[name], owner != feature {
            return "event name \(name.debugDescription) is already imported for feature \(owner)"
        }
        guard !versions.contains("\(name) \(version)") else {
            return "\(name.debugDescription) \(version) was already imported"
        }
        let event = JSONValue.object([
            JSONMember(key: "name", value: .string(name)),
            JSONMember(key: "version", value: .string(version.description)),
            JSONMember(key: "description", value: .string(description.isEmpty ? "Imported." : description)),
            JSONMember(key: "properties", value: Self.objectSchema(properties)),
        ])
        // The event alone, through the same parser the registry uses.
        var problems: [SchemaError] = []
        let single = plan(feature: feature, description: featureDescription, events: [event])
        guard TrackingPlanParser().parse(single, file: nil, problems: &problems) != nil else {
            // Name paths as they are in the source, not in the generated plan.
            let generated = "$.events[0].properties"
            return problems.map { problem in
                if problem.path.hasPrefix(generated) {
                    return "\(propertiesPath)\(problem.path.dropFirst(generated.count)): \(problem.message)"
                }
                if problem.path == "$.events[0].name" {
                    return "event name \(name.debugDescription): \(problem.message)"
                }
                return "\(problem.path): \(problem.message)"
            }.joined(separator: "; ")
        }
        features[feature, default: (featureDescription, [])].events.append(event)
        versions.insert("\(name) \(version)")
        collisionOwners[NamingRules.collisionKey(name)] = name
        featureOfName[name] = feature
        return nil
    }

    /// An event's properties are always an object, so a schema without a type (`{}`, `true`, or
    /// constraints alone) gets `"type": "object"`, which changes nothing it accepts; the registry
    /// takes only object schemas as properties.
    static func objectSchema(_ schema: JSONValue) -> JSONValue {
        let type = JSONMember(key: "type", value: .string("object"))
        switch schema {
        case .bool(true): return .object([type])
        case .object(let members) where !members.contains(where: { $0.key == "type" }): return .object([type] + members)
        default: return schema
        }
    }

    /// The plan documents, by feature.
    var plans: [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for (feature, content) in features {
            result[feature] = plan(feature: feature, description: content.description, events: content.events)
        }
        return result
    }

    private func plan(feature: String, description: String, events: [JSONValue]) -> JSONValue {
        .object([
            JSONMember(key: "feature", value: .string(feature)),
            JSONMember(key: "description", value: .string(description)),
            JSONMember(key: "naming", value: .string(EventNaming.asSent.rawValue)),
            JSONMember(key: "normalize_strings", value: .bool(false)),
            JSONMember(key: "events", value: .array(events)),
        ])
    }
}
