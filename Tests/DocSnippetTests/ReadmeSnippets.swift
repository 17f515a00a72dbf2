// The README's tour and docs/pipeline.md's sink skeleton, compiled (and the test run).

import Logging
import ServiceLifecycle
import TallyCore
import TallyFileStore
import TallyPipeline
import Testing
import Tracking
import TrackingMocks

// EpisodeFeature: an event enum and a screen tracker, exactly as before.
enum EpisodeListEvent: TrackingEventContract {
    case screenViewed
    var name: String { "episode_list_viewed" }
    var properties: [String: String] { [:] }
}

struct EpisodeListTracker {
    let tracker: any TrackerContract
    func trackScreenViewed() { tracker.track(EpisodeListEvent.screenViewed) }
}

// Test: assert on what was tracked.
@Test func screenViewedIsTracked() {
    let mock = TrackerMock()
    EpisodeListTracker(tracker: mock).trackScreenViewed()
    #expect(mock.trackedEvents == [TrackedEvent(name: "episode_list_viewed", properties: [:])])
}

// The app: one pipeline, a tracker per feature, run as a swift-service-lifecycle Service.
func runApp(installID: String, logger: Logger) async throws {
    let pipeline = EventPipeline(sinks: [FileSink(directory: "tally-data")], configuration: .inApp, logger: logger)
    let tracker = pipeline.tracker(feature: "episode", identity: TrackerIdentity(anonymousID: installID))
    _ = EpisodeListTracker(tracker: tracker)  // handed to the feature
    var group = ServiceGroupConfiguration(
        services: [.init(service: pipeline)],
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: logger
    )
    group.maximumGracefulShutdownDuration = .seconds(10)  // then writes in progress are cancelled
    try await ServiceGroup(configuration: group).run()
}

struct MySink: EventSink {
    let name = "my-sink"

    func write(_ batch: [EventEnvelope]) async throws {
        // Take the batch; throw to have it retried (then dead-lettered).
    }

    func flush() async throws {
        // Make what was written durable.
    }

    func shutdown() async throws {
        try await flush()  // then release resources
    }
}
