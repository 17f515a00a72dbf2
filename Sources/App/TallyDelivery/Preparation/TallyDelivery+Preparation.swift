import TallyCore

extension TallyDelivery {
    /// The preparation chain of `configuration`, in the contract's order.
    static func preparation(
        _ configuration: DeliveryConfiguration,
        context: EventContext?,
        network: @escaping @Sendable () -> PropertyValue?
    ) -> EventPreparation {
        var stages: [EventPreparation.Stage] = []
        // 1. Context fill and super-properties merge (an event's own property wins).
        stages.append(.context(context, network: network))
        // 2. The app's enrichment hooks, in order (a drop counts as `dropped_by_hooks`).
        stages += configuration.enrichment.enumerated().map { .enrichment($0.element, index: $0.offset) }
        // 3. Sampling (a sampled-out event counts as `sampled_out`).
        // 4. Personal data removed or hashed.
        if let plan = configuration.trackingPlan {
            stages += privacyStages(plan, salt: configuration.personalDataSalt)
        }
        return EventPreparation(stages: stages)
    }
}
