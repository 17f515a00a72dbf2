import TallyCore

extension EventPreparation.Stage {
    /// The chain's first stage: fills the context (the automatic one, the tracker's own over it)
    /// and merges the super properties snapshot taken at `track()` into events (an event's own
    /// property wins; identity records keep their traits as they are).
    ///
    /// - Parameters:
    ///   - base: the automatic context with the configuration's overrides; nil for none.
    ///   - network: Segment's `network` member as the platform tells it now; nil where it does not.
    static func context(_ base: EventContext?, network: @escaping @Sendable () -> PropertyValue?) -> Self {
        Self("context", counter: .droppedByHooks) { event in
            var context = event.context
            let carried = SuperPropertiesCarrier.take(from: &context)
            if !carried.isEmpty, event.kind == .track {
                event.properties = merge(carried, under: event.properties)
            }
            guard var filled = base else {
                event.context = context
                return true
            }
            if let network = network(), !filled.additional.contains("network") {
                filled.additional["network"] = network
            }
            if let own = context { overlay(own, on: &filled) }
            event.context = filled
            return true
        }
    }

    /// `defaults` with `own` over them.
    static func merge(_ defaults: [EventProperties.Pair], under own: EventProperties) -> EventProperties {
        var pairs = own.sortedPairs
        for pair in defaults where !own.contains(pair.key) { pairs.append(pair) }
        return EventProperties(pairs: pairs)
    }

    /// The fields and members `own` sets replace those of `context`.
    static func overlay(_ own: EventContext, on context: inout EventContext) {
        context.appVersion = own.appVersion ?? context.appVersion
        context.appBuild = own.appBuild ?? context.appBuild
        context.platform = own.platform ?? context.platform
        context.osVersion = own.osVersion ?? context.osVersion
        context.locale = own.locale ?? context.locale
        guard !own.additional.isEmpty else { return }
        context.additional = merge(context.additional.sortedPairs, under: own.additional)
    }
}
