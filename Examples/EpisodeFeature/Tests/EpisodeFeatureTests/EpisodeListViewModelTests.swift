import Testing
import Tracking
import TrackingMocks

@testable import EpisodeFeature

@MainActor
@Suite struct EpisodeListViewModelTests {
    let trackerMock = TrackerMock()
    let episodes = [Episode(id: "ep-1", title: "Pilot"), Episode(id: "ep-2", title: "The Return")]

    @Test func appearingTracksTheScreenOnce() {
        let viewModel = EpisodeListViewModel(episodes: episodes, tracker: EpisodeListTracker(tracker: trackerMock))

        viewModel.onAppear()

        #expect(trackerMock.trackedEvents == [TrackedEvent(name: "episode_list_viewed", properties: [:])])
    }

    @Test func selectingTracksInCallOrderAfterAppearing() {
        let viewModel = EpisodeListViewModel(episodes: episodes, tracker: EpisodeListTracker(tracker: trackerMock))

        viewModel.onAppear()
        viewModel.select(episodes[1])

        #expect(trackerMock.trackedEvents.map(\.name) == ["episode_list_viewed", "episode_list_episode_selected"])
        #expect(trackerMock.trackedEvents.last?.properties == ["episode_id": "ep-2", "position": "1"])
        #expect(viewModel.selectedEpisode == episodes[1])
    }

    @Test func selectingAnUnknownEpisodeTracksNothing() {
        let viewModel = EpisodeListViewModel(episodes: episodes, tracker: EpisodeListTracker(tracker: trackerMock))

        viewModel.select(Episode(id: "ep-9", title: "Missing"))

        #expect(trackerMock.trackedEvents.isEmpty)
    }
}
