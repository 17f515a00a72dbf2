public import TallySchema

/// Validation in the pipeline: each event is checked on its own against the tracking plan before
/// it reaches the sinks, so one invalid event never affects its batch.
public struct EventValidation: Sendable {
    /// The validator (registry and size limits).
    public var validator: EventValidator
    /// What happens to an invalid event.
    public var policy: ValidationPolicy

    /// Validation with `validator` under `policy` (`reject` by default).
    public init(validator: EventValidator, policy: ValidationPolicy = .reject) {
        self.validator = validator
        self.policy = policy
    }
}
