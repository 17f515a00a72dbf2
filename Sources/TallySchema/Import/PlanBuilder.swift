import TallyCore

/// Collects imported events per feature and checks each against tally's own rules before it is kept.
struct PlanBuilder {
    private var features: [String: (description: String, screens: [String], events: [JSONValue])] = [:]
    private var order: [String] = []
    private var versions: Set<String> = []
    private var collisionOwners: [String: String] = [:]
    private var featureOfName: [String: String] = [:]

    /// Adds an event if it meets tally's rules; returns why not otherwise.
    mutating func add(
        feature: String,
        featureDescription: String,
        name: String,
        version: SchemaVer,
        description: String,
        properties: JSONValue
    ) -> String? {
        guard NamingRules.isSnakeCase(feature) else { return "feature \(feature.debugDescription) is not snake_case" }
        guard NamingRules.isSnakeCase(name) else { return "event name \(name.debugDescription) is not snake_case" }
        guard let underscore = name.firstIndex(of: "_") else {
            return "event name \(name) has no {screen}_{action} parts"
        }
        if let owner = collisionOwners[NamingRules.collisionKey(name)], owner != name {
            return "event name \(name) collides with \(owner)"
        }
        if let owner = featureOfName[name], owner != feature {
            return "event name \(name) is already imported for feature \(owner)"
        }
        guard !versions.contains("\(name) \(version)") else { return "\(name) \(version) was already imported" }
        let screen = String(name[..<underscore])
        let event = JSONValue.object([
            JSONMember(key: "name", value: .string(name)),
            JSONMember(key: "version", value: .string(version.description)),
            JSONMember(key: "description", value: .string(description.isEmpty ? "Imported." : description)),
            JSONMember(key: "properties", value: properties),
        ])
        // The event alone, through the same parser the registry uses.
        var problems: [SchemaError] = []
        let single = plan(feature: feature, description: featureDescription, screens: [screen], events: [event])
        guard TrackingPlanParser().parse(single, file: nil, problems: &problems) != nil else {
            // Name paths as they are in the source schema, not in the generated plan.
            return problems.map { problem in
                let path =
                    problem.path.hasPrefix("$.events[0].properties")
                    ? "$" + problem.path.dropFirst("$.events[0].properties".count) : problem.path
                return "\(path): \(problem.message)"
            }.joined(separator: "; ")
        }
        if features[feature] == nil {
            features[feature] = (featureDescription, [], [])
            order.append(feature)
        }
        if !features[feature]!.screens.contains(screen) { features[feature]!.screens.append(screen) }
        features[feature]!.events.append(event)
        versions.insert("\(name) \(version)")
        collisionOwners[NamingRules.collisionKey(name)] = name
        featureOfName[name] = feature
        return nil
    }

    /// The plan documents, by feature.
    var plans: [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for (feature, content) in features {
            result[feature] = plan(
                feature: feature,
                description: content.description,
                screens: content.screens.sorted(),
                events: content.events
            )
        }
        return result
    }

    private func plan(feature: String, description: String, screens: [String], events: [JSONValue]) -> JSONValue {
        .object([
            JSONMember(key: "feature", value: .string(feature)),
            JSONMember(key: "description", value: .string(description)),
            JSONMember(key: "screens", value: .array(screens.map(JSONValue.string))),
            JSONMember(key: "events", value: .array(events)),
        ])
    }
}
