import TallySchema

extension TallyDelivery {
    /// Stages 3 and 4 of the preparation chain, from the app's tracking plan: sampling (a
    /// sampled-out event counts as `sampled_out`), then personal data removed or hashed (never
    /// drops). None when the plan samples nothing and marks nothing.
    static func privacyStages(_ plan: SchemaRegistry, salt: String?) -> [EventPreparation.Stage] {
        var stages: [EventPreparation.Stage] = []
        let sampler = Sampler(registry: plan)
        if sampler.isActive {
            stages.append(EventPreparation.Stage("sampling", counter: .sampledOut) { sampler.keep(&$0) })
        }
        let scrubber = PersonalDataScrubber(registry: plan, salt: salt)
        if scrubber.isActive {
            // The counter is never used: this stage keeps every event.
            stages.append(
                EventPreparation.Stage("personal data", counter: .droppedByHooks) { event in
                    scrubber.scrub(&event)
                    return true
                }
            )
        }
        return stages
    }
}
