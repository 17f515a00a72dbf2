/// What the user agreed to, as the app tells ``TallyDelivery/setConsent(_:)``; remembered in the
/// outbox directory (`consent.json`) across launches.
public enum ConsentState: String, Sendable, Hashable, CaseIterable {
    /// Events are written to the outbox and uploaded.
    case granted
    /// Not decided yet: events are written to the outbox (its caps still apply) but nothing is
    /// uploaded. Granting uploads them; denying deletes them.
    case pending
    /// Opted out: `track()` keeps nothing (counted as ``DeliveryStatistics/discardedNoConsent``),
    /// and what waited in memory and in the outbox is deleted.
    case denied

    /// Whether the uploader may send.
    var allowsUpload: Bool { self == .granted }
    /// Whether events are kept at all.
    var allowsTracking: Bool { self != .denied }
}
