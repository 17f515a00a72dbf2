/// Something that accepts analytics events.
///
/// Feature modules depend on this protocol only. The app injects a real tracker (tally's
/// `PipelineTracker`); tests inject `TrackerMock` from `TrackingMocks`.
public protocol TrackerContract: Sendable {
    /// Records an event.
    ///
    /// Implementations are synchronous, never block the caller and never throw: tracking must
    /// not be able to slow down or break the feature that calls it.
    func track(_ event: any TrackingEventContract)
}
