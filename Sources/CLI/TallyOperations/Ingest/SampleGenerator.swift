package import TallyCore

/// Synthetic NDJSON events for the Examples tracking plans (episode, search, player): users with
/// sessions browsing, searching and playing, spread over days; optionally some bad lines.
/// Deterministic for a seed, so tests and benchmarks can regenerate the same file.
package struct SampleGenerator: Sendable {
    /// Events to produce (bad lines not included).
    package var events: Int
    /// The random seed.
    package var seed: UInt64
    /// Days the events span, ending at ``end``.
    package var days: Int
    /// The end of the time span.
    package var end: Timestamp
    /// Distinct users.
    package var users: Int
    /// One bad line after every this many events; 0 for none.
    package var badEvery: Int

    /// A generator.
    package init(
        events: Int,
        seed: UInt64 = 42,
        days: Int = 14,
        end: Timestamp = Timestamp(rfc3339: "2026-11-22T00:00:00Z")!,
        users: Int = 500,
        badEvery: Int = 0
    ) {
        self.events = events
        self.seed = seed
        self.days = max(days, 1)
        self.end = end
        self.users = max(users, 1)
        self.badEvery = badEvery
    }

    /// Kinds of bad lines, cycled through.
    static let badLines: [String] = [
        #"{"name":"episode_list_viewed","occurred_at":"2026-11-20T10:00:00Z""#,
        #"{"name":"episode_list_episode_selected","occurred_at":"2026-11-20T10:00:00Z","properties":{"episode_id":"ep-1","position":"third"}}"#,
        #"{"name":"EpisodeListViewed","occurred_at":"2026-11-20T10:00:00Z"}"#,
        #"{"name":"episode_list_viewed","occurred_at":"yesterday"}"#,
        #"{"name":"search_query_submitted","occurred_at":"2026-11-20T10:00:00Z","properties":{"query_length":0,"results":3}}"#,
        #"{"occurred_at":"2026-11-20T10:00:00Z","properties":{}}"#,
    ]

    /// Calls `body` with each line (without its newline), in order.
    package func generate(_ body: ([UInt8]) throws -> Void) rethrows {
        var random = SplitMix64(seed: seed)
        var generator = UUIDv7Generator(seed: seed)
        let span = Int64(days) * 86_400_000_000_000
        let start = end.advanced(byNanoseconds: -span)
        var line: [UInt8] = []
        line.reserveCapacity(512)
        for index in 0..<events {
            // Time grows with the index, with jitter: files look like real exports.
            let base = span / Int64(max(events, 1)) * Int64(index)
            let jitter = Int64(random.next() % 60_000_000_000)
            let occurredAt = start.advanced(byNanoseconds: min(base + jitter, span - 1))
            let user = Int(random.next() % UInt64(users))
            let episode = "ep-\(random.next() % 500 + 1)"
            let name: String
            let feature: String
            var properties: [EventProperties.Pair] = []
            switch random.next() % 10 {
            case 0:
                (feature, name) = ("episode", "episode_list_viewed")
            case 1, 2:
                (feature, name) = ("episode", "episode_list_episode_selected")
                properties = [("episode_id", .string(episode)), ("position", .integer(Int64(random.next() % 50)))]
            case 3:
                (feature, name) = ("episode", "episode_detail_viewed")
                let sources = ["list", "search", "deep_link", "notification"]
                properties = [("episode_id", .string(episode)), ("source", .string(sources[Int(random.next() % 4)]))]
            case 4:
                (feature, name) = ("search", "search_viewed")
            case 5:
                (feature, name) = ("search", "search_query_submitted")
                properties = [
                    ("query_length", .integer(Int64(random.next() % 40 + 1))),
                    ("results", .integer(Int64(random.next() % 30))),
                ]
            case 6:
                (feature, name) = ("search", "search_result_selected")
                properties = [("episode_id", .string(episode)), ("position", .integer(Int64(random.next() % 10)))]
            case 7:
                (feature, name) = ("player", "player_opened")
                properties = [("episode_id", .string(episode))]
            case 8:
                (feature, name) = ("player", "player_playback_paused")
                properties = [
                    ("episode_id", .string(episode)),
                    ("position_seconds", .number(Double(random.next() % 360_000) / 100)),
                ]
            default:
                (feature, name) = ("player", "player_speed_changed")
                let speeds = [0.5, 0.8, 1, 1.2, 1.5, 2]
                properties = [("speed", .number(speeds[Int(random.next() % 6)]))]
            }
            var event = EventEnvelope(
                eventID: generator.next(at: occurredAt),
                name: name,
                feature: feature,
                properties: EventProperties(pairs: properties),
                occurredAt: occurredAt,
                sessionID: "s-\(user)-\(index / 40)",
                context: EventContext(appVersion: "4.2.\(user % 3)", platform: user % 4 == 0 ? "android" : "ios")
            )
            if user % 3 == 0 { event.userID = "user-\(user)" } else { event.anonymousID = "install-\(user)" }
            line.removeAll(keepingCapacity: true)
            event.appendNDJSON(to: &line)
            line.removeLast()
            try body(line)
            if badEvery > 0, (index + 1) % badEvery == 0 {
                try body(Array(Self.badLines[((index + 1) / badEvery - 1) % Self.badLines.count].utf8))
            }
        }
    }
}
