package import TallyCore

/// Merged identities (docs/reports.md, Actors and identity merging): identify records link their
/// anonymous id to their user id, alias records their previous id to their user id; an id takes
/// its first link (earliest `occurred_at`, then smallest `event_id`) and resolves by following
/// first links until an id has none or comes up a second time.
package struct IdentityResolver: Sendable {
    private struct Link {
        var target: String
        var time: Timestamp
        var recordID: EventID
    }

    private var links: [String: Link] = [:]

    package init() {}

    /// Takes one identity record (events and `group` records link nothing).
    package mutating func add(_ record: EventEnvelope) {
        let from: String?
        switch record.kind {
        case .identify: from = record.anonymousID
        case .alias: from = record.previousID
        default: return
        }
        guard let from, let target = record.userID, from != target else { return }
        let link = Link(target: target, time: record.occurredAt, recordID: record.eventID)
        if let existing = links[from],
            (existing.time, existing.recordID.high, existing.recordID.low) <= (link.time, link.recordID.high, link.recordID.low)
        {
            return
        }
        links[from] = link
    }

    /// How many ids have a link.
    package var count: Int { links.count }

    /// The id `id` counts as.
    package func resolve(_ id: String) -> String {
        guard links[id] != nil else { return id }
        var seen: Set<String> = [id]
        var current = id
        while let next = links[current]?.target, seen.insert(next).inserted {
            current = next
        }
        return current
    }

    /// Every linked id with the id it resolves to.
    package var resolvedLinks: [(id: String, actor: String)] {
        links.keys.sorted().map { ($0, resolve($0)) }
    }
}
