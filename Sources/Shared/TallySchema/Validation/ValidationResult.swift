public import TallyCore

/// The verdict on one event.
public struct ValidationResult: Sendable {
    /// The event as it should be stored: feature and schema version filled in, property values
    /// converted to their declared types.
    public var event: EventEnvelope
    /// Every problem found; empty when valid.
    public var violations: [EventViolation]

    /// Whether the event passed.
    public var isValid: Bool { violations.isEmpty }

    /// The reason codes, one per violation.
    public var codes: [ReasonCode] { violations.map(\.code) }

    /// A one-line summary: `type_mismatch at $.properties.position: expected integer, …`.
    public var summary: String { violations.map(\.description).joined(separator: "; ") }
}
