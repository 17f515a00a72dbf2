import Foundation
public import Tracking

/// A tracker for tests: records every tracked event, in call order.
///
/// Safe to use from any thread or task. Compare with ``TrackedEvent`` values:
///
/// ```swift
/// let trackerMock = TrackerMock()
/// EpisodeListTracker(tracker: trackerMock).trackScreenViewed()
/// #expect(trackerMock.trackedEvents == [TrackedEvent(name: "episode_list_viewed", properties: [:])])
/// ```
public final class TrackerMock: TrackerContract, @unchecked Sendable {
    // NSLock rather than Synchronization.Mutex: the mock must build on every OS the feature modules target.
    private let lock = NSLock()
    private var events: [TrackedEvent] = []

    /// Creates an empty mock.
    public init() {}

    /// Every event tracked so far, in call order.
    public var trackedEvents: [TrackedEvent] {
        lock.lock()
        defer { lock.unlock() }
        return events
    }

    /// The names of every event tracked so far, in call order.
    public var trackedEventNames: [String] {
        trackedEvents.map(\.name)
    }

    /// Records the event.
    public func track(_ event: any TrackingEventContract) {
        let tracked = TrackedEvent(event)
        lock.lock()
        events.append(tracked)
        lock.unlock()
    }

    /// Forgets every event tracked so far.
    public func reset() {
        lock.lock()
        events.removeAll()
        lock.unlock()
    }
}
