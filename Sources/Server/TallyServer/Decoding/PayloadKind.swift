import TallyFormats

/// What a route takes, which decides how its body is read.
enum PayloadKind: Sendable, Hashable {
    /// `/v1/events`: tally envelopes as NDJSON or a JSON array.
    case tally
    /// Segment's batch routes: `{"batch":[…],"sentAt":…}`.
    case segmentBatch
    /// Segment's single calls (`/v1/track`, …): one message, its `type` implied by the route.
    case segmentCall(String)
    /// PostHog's capture routes: one event, a bare array, or `{"batch":[…]}`.
    case posthog
    /// `/batch`, shared by Segment and PostHog: told apart by the body (PostHog items have
    /// `event`, Segment's `type`).
    case sharedBatch

    /// The reply of a 200, in the format the route's clients check.
    var successReply: [UInt8]? {
        switch self {
        case .tally: nil
        case .segmentBatch, .segmentCall: Array(#"{"success":true}"#.utf8)
        case .posthog: Array(#"{"status":1}"#.utf8)
        case .sharedBatch: nil
        }
    }
}
