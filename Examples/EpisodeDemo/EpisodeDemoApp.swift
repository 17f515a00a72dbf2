import EpisodeFeature
import Logging
import ServiceLifecycle
import TallyPipeline
import Tracking

/// The "app" of the demo: opens the episode list and selects episodes, as a user would.
///
/// A `Service`, so that it stops tracking on graceful shutdown before the pipeline drains.
struct EpisodeDemoApp: Service {
    let tracker: PipelineTracker
    /// Screen visits to simulate; nil: until graceful shutdown.
    let visits: Int?
    /// Visits per second; nil: as fast as a busy app.
    let rate: Double?
    let logger: Logger
    /// Called after each visit (numbered from 1): the app mode's simulated login, logout, background.
    var afterVisit: (@Sendable (Int) -> Void)?

    func run() async throws {
        let episodes = (1...12).map { Episode(id: "ep-\($0)", title: "Episode \($0)") }
        var visit = 0
        while !Task.isShuttingDownGracefully && visits.map({ visit < $0 }) ?? true {
            visit += 1
            await MainActor.run {
                var generator = SystemRandomNumberGenerator()
                let viewModel = EpisodeListViewModel(episodes: episodes, tracker: EpisodeListTracker(tracker: tracker))
                viewModel.onAppear()
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    viewModel.select(episodes.randomElement(using: &generator)!)
                }
            }
            afterVisit?(visit)
            if let rate {
                try? await Task.sleep(for: .seconds(1 / rate))
            } else if visits == nil && visit % 32 == 0 {
                // A user taps a few times a second, not millions: keep the pace of a busy app.
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        logger.debug("app stopped tracking", metadata: ["tally.visits": "\(visit)"])
    }
}
