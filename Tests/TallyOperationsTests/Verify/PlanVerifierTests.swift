import Foundation
import TallyOperations
import TallySchema
import TallyTestSupport
import Testing

/// `tally schema verify` over the Examples feature (generated events, used by name) and a second
/// package written here by hand, with planted unplanned and unimplemented events.
@Suite("Plans against Swift code")
struct PlanVerifierTests {
    static var root: String { ConformanceData.repositoryRoot!.path }

    /// A second package: conformances of every shape verify reads, one event no plan declares
    /// (`search_filters_opened`), one name it cannot evaluate, and two planned events left out
    /// (`player_speed_changed`, `search_result_selected`).
    static let fixture: [String: String] = [
        "Search/SearchEvent.swift": """
        import Tracking

        enum SearchEvent: TrackingEventContract {
            case viewed
            case querySubmitted(length: Int, results: Int)
            case filtersOpened

            var name: String {
                switch self {
                case .viewed: "search_viewed"
                case .querySubmitted: "search_query_submitted"
                case .filtersOpened: "search_filters_opened"
                }
            }

            var properties: [String: String] { [:] }
        }
        """,
        "Player/PlayerEvents.swift": """
        import Tracking

        protocol PlayerEventContract: Tracking.TrackingEventContract {}

        struct PlayerOpened: PlayerEventContract {
            let name = "player_opened"
            let episodeID: String
            var properties: [String: String] { ["episode_id": episodeID] }
        }

        struct PlaybackPaused {
            static let eventName = "player_playback_paused"
            var properties: [String: String] { [:] }
        }

        extension PlaybackPaused: TrackingEventContract {
            var name: String { Self.eventName }
        }

        enum DetailEvent: String, TrackingEventContract {
            case viewed = "episode_detail_viewed"
            case played = "episode_detail_play_tapped"

            var name: String { rawValue }
            var properties: [String: String] { [:] }
        }

        struct ScreenEvent: TrackingEventContract {
            let screen: String
            var name: String { "\\(screen)_viewed" }
            var properties: [String: String] { [:] }
        }
        """,
    ]

    static func writeFixture() throws -> String {
        let directory = NSTemporaryDirectory() + "tally-verify-" + UUID().uuidString + "/Sources"
        for (path, code) in fixture {
            let file = directory + "/" + path
            try FileManager.default.createDirectory(
                atPath: (file as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true
            )
            try code.write(toFile: file, atomically: true, encoding: .utf8)
        }
        return directory
    }

    @Test("finds exactly the planted unplanned and unimplemented events, and the name it cannot tell, with file:line")
    func plantedFindings() throws {
        let fixture = try Self.writeFixture()
        let registry = try SchemaRegistry.load(directory: Self.root + "/Examples/registry")
        let examples = Self.root + "/Examples/EpisodeFeature/Sources"
        let report = try PlanVerifier(registry: registry).verify(sources: [examples, fixture])

        #expect(report.plannedNotCoded.map(\.name) == ["player_speed_changed", "search_result_selected"])
        #expect(report.plannedNotCoded.first?.declaredIn == "player.json $.events[2]")
        #expect(report.codedNotPlanned.map(\.name) == ["search_filters_opened"])
        #expect(report.codedNotPlanned.first?.location.description == fixture + "/Search/SearchEvent.swift:12")
        #expect(report.unresolved.map(\.location.description) == [fixture + "/Player/PlayerEvents.swift:30"])
        #expect(report.unresolved.first?.message.contains("string interpolation") == true)

        // The Examples feature's generated events, where it uses them.
        let tracker = examples + "/EpisodeFeature/EpisodeListTracker.swift"
        let uses = report.coded.filter { $0.location.file == tracker }
        #expect(uses.map(\.name) == ["episode_list_viewed", "episode_list_episode_selected"])
        #expect(uses.map(\.via) == ["EpisodeListEvent.viewed", "EpisodeListEvent.episodeSelected"])
        #expect(uses.map(\.location.line) == [22, 26])
        #expect(
            Set(report.coded.map(\.name))
                == [
                    "episode_list_viewed", "episode_list_episode_selected", "search_viewed", "search_query_submitted",
                    "search_filters_opened", "player_opened", "player_playback_paused", "episode_detail_viewed",
                    "episode_detail_play_tapped",
                ]
        )
        #expect(
            report.conformances == ["DetailEvent", "PlaybackPaused", "PlayerOpened", "ScreenEvent", "SearchEvent"]
        )
        #expect(report.hasFindings)
    }

    @Test("the command exits 1 on findings and names them; 64 for a missing directory")
    func command() async throws {
        let fixture = try Self.writeFixture()
        let result = try await TestDatabase.tally([
            "schema", "verify", "--sources", "Examples/EpisodeFeature/Sources", fixture,
            "--registry", "Examples/registry",
        ])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stdout.contains("search_filters_opened  \(fixture)/Search/SearchEvent.swift:12  (SearchEvent.name)")
        )
        #expect(result.stdout.contains("planned, not coded (2):"))
        let missing = try await TestDatabase.tally([
            "schema", "verify", "--sources", "/nonexistent", "--registry", "Examples/registry",
        ])
        #expect(missing.status == 64, "\(missing.stderr)")
    }
}
