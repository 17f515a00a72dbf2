import Foundation

/// The events of an acknowledged request that the collector refused one by one, from the tally
/// wire's reply (`{"accepted":N,"rejected":[{"index":I,"reason":"…","path":"…","message":"…"}]}`).
///
/// They are not lost (the collector keeps each with its reason; `tally status` lists them), but
/// they are not stored events either, so the client counts them apart from the uploaded ones.
/// A Segment or PostHog reply does not list rejects: none are counted there.
struct ServerRejects: Sendable, Hashable {
    /// How many events were refused.
    var count = 0
    /// The first one's reason code, message and JSON path, for the log.
    var firstReason: String?
    var firstMessage: String?
    var firstPath: String?

    init() {}

    /// Reads a reply body; an answer that is not tally's shape counts nothing.
    init(reply: Data) {
        // Most replies list no reject: skip the parse for them (a reply is read per request).
        guard reply.count < 1 << 20, reply.range(of: Data(#""rejected":[{"#.utf8)) != nil,
            let object = try? JSONSerialization.jsonObject(with: reply) as? [String: Any],
            let rejected = object["rejected"] as? [[String: Any]]
        else { return }
        count = rejected.count
        firstReason = rejected.first?["reason"] as? String
        firstMessage = rejected.first?["message"] as? String
        firstPath = rejected.first?["path"] as? String
    }
}
