public import TallyCore

/// An app's enrichment hook: sees each event (and identity record) after the context and super
/// properties were added, before it is written to the outbox, and may change it or drop it.
///
/// Hooks run in the order of ``DeliveryConfiguration/enrichment``, off the `track()` caller's
/// thread (in the outbox's batch write); a drop is counted (``DeliveryStatistics/droppedByHooks``,
/// `dropped_by_hooks` in the server's `outbox_diagnostics`), never silent.
///
/// ```swift
/// configuration.enrichment = [
///     { event in event.properties["build_flavor"] = "beta"; return .keep },
///     { event in event.name == "debug_tapped" ? .drop : .keep },
/// ]
/// ```
public typealias EnrichmentHook = @Sendable (inout EventEnvelope) -> EnrichmentDecision

/// What an ``EnrichmentHook`` decides for an event.
public enum EnrichmentDecision: Sendable, Hashable {
    /// Keep it (with the hook's changes), for the next hook and the outbox.
    case keep
    /// Drop it: counted as `dropped_by_hooks`.
    case drop
}

extension EventPreparation.Stage {
    /// The stage of one enrichment hook.
    static func enrichment(_ hook: @escaping EnrichmentHook, index: Int) -> Self {
        Self("enrichment[\(index)]", counter: .droppedByHooks) { hook(&$0) == .keep }
    }
}
