import Testing
import Tracking
import TrackingMocks

@testable import EpisodeFeature

@Suite struct EpisodeListTrackerTests {
    let trackerMock = TrackerMock()

    @Test func screenViewedTracksEpisodeListViewed() {
        EpisodeListTracker(tracker: trackerMock).trackScreenViewed()

        #expect(trackerMock.trackedEvents.first == TrackedEvent(name: "episode_list_viewed", properties: [:]))
    }

    @Test func episodeSelectedCarriesTheEpisodeAndItsPosition() {
        EpisodeListTracker(tracker: trackerMock).trackEpisodeSelected(episodeID: "ep-42", position: 3)

        #expect(
            trackerMock.trackedEvents == [
                TrackedEvent(
                    name: "episode_list_episode_selected",
                    properties: ["episode_id": "ep-42", "position": "3"]
                )
            ]
        )
    }
}
