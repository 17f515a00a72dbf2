package import TallyCore
package import TallySchema

/// Removes or hashes the properties a tracking plan marks as personal data
/// (`"x-tally-personal-data": "remove" | "hash"`), before an event is written to the outbox: they
/// never leave the device, nor wait on its disk.
///
/// A hashed value becomes the lowercase hex SHA-256 of its text (a string's UTF-8, any other
/// value's compact JSON), or its HMAC-SHA-256 under the app's
/// ``DeliveryConfiguration/personalDataSalt`` when one is set, so that a dictionary of likely
/// values (every email address) cannot be hashed to reverse it without the salt. Rules apply to the
/// event's schema version in the plan (the latest when the event has none or one the plan does
/// not know); an event whose name the plan
/// does not know is left as it is. `identify` and `group` traits get the action of any event's
/// top-level property of the same key (``SchemaRegistry/personalDataKeys``), since no plan
/// declares traits.
package struct PersonalDataScrubber: Sendable {
    private let registry: SchemaRegistry
    private let salt: [UInt8]?
    private let traitRules: [String: PersonalDataAction]
    /// Whether any event of the plan has rules: most plans have none, and then nothing is looked up.
    package let isActive: Bool

    package init(registry: SchemaRegistry, salt: String?) {
        self.registry = registry
        self.salt = salt.map { Array($0.utf8) }
        traitRules = registry.personalDataKeys
        isActive =
            !traitRules.isEmpty || registry.plans.values.contains { $0.events.contains { !$0.personalData.isEmpty } }
    }

    /// Applies the plan's rules to `event`.
    package func scrub(_ event: inout EventEnvelope) {
        guard isActive else { return }
        switch event.kind {
        case .track:
            // A version the plan does not know gets the latest's rules: better hashed than leaked.
            let version = event.schemaVersion.flatMap(SchemaVer.init)
            let schema = registry.event(event.name, version: version) ?? registry.event(event.name)
            guard let schema, !schema.personalData.isEmpty else {
                return
            }
            for rule in schema.personalData { apply(rule, to: &event) }
        case .identify, .group:
            for (key, action) in traitRules where event.properties.contains(key) {
                apply(PersonalDataRule(path: [.key(key)], action: action), to: &event)
            }
        case .alias:
            return
        }
    }

    /// The hash of one value: hex SHA-256, or HMAC-SHA-256 under the salt.
    package func hash(_ value: JSONValue) -> String {
        let bytes: [UInt8]
        if case .string(let text) = value {
            bytes = Array(text.utf8)
        } else {
            bytes = Array(JSONWriter.text(value).utf8)
        }
        return SHA256.hex(salt.map { SHA256.hmac(key: $0, message: bytes) } ?? SHA256.digest(bytes))
    }

    private func apply(_ rule: PersonalDataRule, to event: inout EventEnvelope) {
        guard case .key(let key)? = rule.path.first, let value = event.properties[key] else { return }
        if rule.path.count == 1 {
            switch rule.action {
            case .remove: event.properties[key] = nil
            case .hash: event.properties[key] = .string(hash(value.jsonValue))
            }
            return
        }
        // Nested: only objects and arrays have members; a value of another shape has nothing there.
        guard case .json = value else { return }
        var tree = value.jsonValue
        guard apply(rule.path.dropFirst(), rule.action, to: &tree) else { return }
        event.properties[key] = PropertyValue(tree)
    }

    /// Applies the rest of a rule inside a JSON value; returns whether anything changed.
    private func apply(
        _ steps: ArraySlice<PersonalDataRule.Step>,
        _ action: PersonalDataAction,
        to value: inout JSONValue
    )
        -> Bool
    {
        guard let step = steps.first else { return false }
        let last = steps.count == 1
        switch (step, value) {
        case (.key(let key), .object(var members)):
            var changed = false
            // Every member of that name: a repeated key must not let a copy through.
            members = members.compactMap { member in
                guard member.key == key else { return member }
                changed = true
                guard last else {
                    var inner = member.value
                    _ = apply(steps.dropFirst(), action, to: &inner)
                    return JSONMember(key: key, value: inner)
                }
                return action == .remove ? nil : JSONMember(key: key, value: .string(hash(member.value)))
            }
            value = .object(members)
            return changed
        case (.everyElement, .array(var elements)):
            for index in elements.indices {
                if last {
                    elements[index] = .string(hash(elements[index]))
                } else {
                    _ = apply(steps.dropFirst(), action, to: &elements[index])
                }
            }
            value = .array(elements)
            return !elements.isEmpty
        case (.element(let index), .array(var elements)) where elements.indices.contains(index):
            if last {
                elements[index] = .string(hash(elements[index]))
            } else {
                _ = apply(steps.dropFirst(), action, to: &elements[index])
            }
            value = .array(elements)
            return true
        default:
            return false
        }
    }
}
