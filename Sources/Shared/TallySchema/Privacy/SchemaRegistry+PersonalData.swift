extension SchemaRegistry {
    /// Top-level property keys some event of the plans marks as personal data, with the action
    /// (`remove` wins over `hash` when events disagree): what the device applies to the traits of
    /// `identify` and `group` calls, which no plan declares.
    public var personalDataKeys: [String: PersonalDataAction] {
        var keys: [String: PersonalDataAction] = [:]
        for plan in plans.values {
            for event in plan.events {
                for rule in event.personalData where rule.path.count == 1 {
                    guard case .key(let key) = rule.path[0] else { continue }
                    if keys[key] != .remove { keys[key] = rule.action }
                }
            }
        }
        return keys
    }
}
