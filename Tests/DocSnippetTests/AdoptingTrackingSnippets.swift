// The code samples of Tracking.docc/AdoptingTracking.md, compiled and exercised by the tests below.
// DocSamplesTests checks that every Swift sample in the docs appears here (or in another file of
// this folder) verbatim.

import Foundation
import Testing
import Tracking
import TrackingMocks

// MARK: - The feature module

/// The events of the Search feature: one enum, `{screen}_{action}` names, string properties.
enum SearchEvent: TrackingEventContract {
    case screenViewed
    case querySubmitted(queryLength: Int, results: Int)

    var name: String {
        switch self {
        case .screenViewed: "search_viewed"
        case .querySubmitted: "search_query_submitted"
        }
    }

    var properties: [String: String] {
        switch self {
        case .screenViewed: [:]
        case .querySubmitted(let queryLength, let results):
            ["query_length": String(queryLength), "results": String(results)]
        }
    }
}

/// The screen tracker: the only type of the feature that knows about tracking.
protocol SearchTrackerContract: Sendable {
    func trackScreenViewed()
    func trackQuerySubmitted(queryLength: Int, results: Int)
}

struct SearchTracker: SearchTrackerContract {
    private let tracker: any TrackerContract

    init(tracker: any TrackerContract) {
        self.tracker = tracker
    }

    func trackScreenViewed() {
        tracker.track(SearchEvent.screenViewed)
    }

    func trackQuerySubmitted(queryLength: Int, results: Int) {
        tracker.track(SearchEvent.querySubmitted(queryLength: queryLength, results: results))
    }
}

// MARK: - Dependencies as a struct of @Sendable closures

/// What the feature needs from the outside world, as plain closures: easy to fake in tests and
/// previews, no protocol per dependency.
struct SearchDependencies: Sendable {
    var search: @Sendable (_ query: String) async throws -> [String]
    var tracker: any SearchTrackerContract
}

// MARK: - An actor-based use case

/// The use case owns its state in an actor; tracking is a synchronous, non-blocking call from
/// inside it (the pipeline's `track` never waits).
actor SearchUseCase {
    private let dependencies: SearchDependencies
    private(set) var lastResults: [String] = []

    init(dependencies: SearchDependencies) {
        self.dependencies = dependencies
    }

    func submit(_ query: String) async throws -> [String] {
        let results = try await dependencies.search(query)
        lastResults = results
        dependencies.tracker.trackQuerySubmitted(queryLength: query.count, results: results.count)
        return results
    }
}

// MARK: - The app's container

/// The app's composition root: the one place that knows the concrete tracker. Features receive
/// what they need through their dependencies.
struct AppContainer: Sendable {
    let tracker: any TrackerContract

    func makeSearchUseCase(search: @escaping @Sendable (String) async throws -> [String]) -> SearchUseCase {
        SearchUseCase(dependencies: SearchDependencies(search: search, tracker: SearchTracker(tracker: tracker)))
    }
}

// MARK: - Testing with TrackingMocks

@Suite("Docs: adopting Tracking")
struct AdoptingTrackingTests {
    @Test("the use case tracks the submitted query")
    func useCaseTracksQuery() async throws {
        let tracker = TrackerMock()
        let container = AppContainer(tracker: tracker)
        let useCase = container.makeSearchUseCase { query in ["\(query) 1", "\(query) 2"] }

        _ = try await useCase.submit("swift")

        #expect(
            tracker.trackedEvents == [
                TrackedEvent(name: "search_query_submitted", properties: ["query_length": "5", "results": "2"])
            ]
        )
    }
}
