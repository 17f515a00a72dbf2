import Foundation

/// The events of an acknowledged request that the collector refused one by one, from its reply:
/// `{"accepted":N,"rejected":[{"index":I,"reason":"…","path":"…","message":"…"}]}` on tally's wire,
/// `{"success":true,"rejected":[…]}` from `tally serve` on Segment's.
///
/// They are not lost (the collector keeps each with its reason; `tally status` lists them), but
/// they are not stored events either, so the client counts them apart from the uploaded ones.
/// Another Segment-compatible endpoint answers `{"success":true}` alone: none are counted there.
struct ServerRejects: Sendable, Hashable {
    /// How many events were refused.
    var count = 0
    /// The first one's reason code, message and JSON path, for the log.
    var firstReason: String?
    var firstMessage: String?
    var firstPath: String?

    init() {}

    /// Reads a reply body; an answer without a `rejected` list counts nothing.
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
