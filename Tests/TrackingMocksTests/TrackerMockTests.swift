import Testing
import Tracking
import TrackingMocks

@Suite("TrackerMock")
struct TrackerMockTests {
    enum SampleEvent: TrackingEventContract {
        case viewed
        case selected(index: Int)

        var name: String {
            switch self {
            case .viewed: "sample_viewed"
            case .selected: "sample_selected"
            }
        }

        var properties: [String: String] {
            switch self {
            case .viewed: [:]
            case .selected(let index): ["index": String(index)]
            }
        }
    }

    @Test("records events in call order, as TrackedEvent values")
    func recordsInOrder() {
        let mock = TrackerMock()
        mock.track(SampleEvent.viewed)
        mock.track(SampleEvent.selected(index: 2))
        #expect(
            mock.trackedEvents == [
                TrackedEvent(name: "sample_viewed", properties: [:]),
                TrackedEvent(name: "sample_selected", properties: ["index": "2"]),
            ]
        )
        #expect(mock.trackedEventNames == ["sample_viewed", "sample_selected"])
        mock.reset()
        #expect(mock.trackedEvents.isEmpty)
    }

    @Test("is safe from many threads at once: nothing lost, each thread's order kept")
    func concurrentTracking() async {
        let mock = TrackerMock()
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for index in 0..<1_000 {
                        mock.track(TrackedEvent(name: "t\(thread)", properties: ["i": String(index)]))
                    }
                }
            }
        }
        let events = mock.trackedEvents
        #expect(events.count == 8_000)
        for thread in 0..<8 {
            let indices = events.filter { $0.name == "t\(thread)" }.compactMap { $0.properties["i"].flatMap(Int.init) }
            #expect(indices == Array(0..<1_000))
        }
    }
}
