import TallyCore

/// How a snapshot of the super properties travels from `track()` to the preparation chain: in the
/// envelope's context, as members whose keys start with a byte no context key has (`\u{1}`).
/// `track()` only stores a prepared context (a few retains); the chain's first stage takes the
/// members out again and merges them into the properties. They never reach the outbox.
enum SuperPropertiesCarrier {
    static let prefix = "\u{1}"

    /// The context that carries `properties`; nil when there are none.
    static func context(_ properties: [String: PropertyValue]) -> EventContext? {
        guard !properties.isEmpty else { return nil }
        return EventContext(
            additional: EventProperties(pairs: properties.map { (key: prefix + $0.key, value: $0.value) })
        )
    }

    /// Adds the carried members to an event's own context (a tracker made with a context of its own).
    static func attach(_ carrier: EventContext, to context: inout EventContext) {
        var additional = context.additional
        carrier.additional.forEach { key, value in additional[key] = value }
        context.additional = additional
    }

    /// Takes the carried super properties out of `context` (left nil when nothing else is in it).
    static func take(from context: inout EventContext?) -> [EventProperties.Pair] {
        guard let current = context, !current.additional.isEmpty else { return [] }
        var carried: [EventProperties.Pair] = []
        var others: [EventProperties.Pair] = []
        current.additional.forEach { key, value in
            if key.hasPrefix(prefix) {
                carried.append((String(key.dropFirst(prefix.count)), value))
            } else {
                others.append((key, value))
            }
        }
        guard !carried.isEmpty else { return [] }
        var remaining = current
        remaining.additional = EventProperties(pairs: others)
        context = remaining.isEmpty ? nil : remaining
        return carried
    }
}
