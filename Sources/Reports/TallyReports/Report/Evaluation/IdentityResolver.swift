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
        guard let from, let target = record.userID else { return }
        addLink(from: from, to: target, time: record.occurredAt, recordID: record.eventID)
    }

    /// Takes the link of one identify (anonymous id → user id) or alias (previous id → user id)
    /// record.
    package mutating func addLink(from: String, to target: String, time: Timestamp, recordID: EventID) {
        guard from != target else { return }
        let link = Link(target: target, time: time, recordID: recordID)
        if let existing = links[from],
            (existing.time, existing.recordID.high, existing.recordID.low) <= (
                link.time, link.recordID.high, link.recordID.low
            )
        {
            return
        }
        links[from] = link
    }

    /// How many ids have a link.
    package var count: Int { links.count }

    /// The id `id` counts as: the end of its first links, or, when they run into a cycle, the
    /// cycle's smallest id (by UTF-8 bytes), so that every id of a cycle is one actor.
    package func resolve(_ id: String) -> String {
        guard links[id] != nil else { return id }
        var path = [id]
        var position: [String: Int] = [id: 0]
        var current = id
        while let next = links[current]?.target {
            if let start = position[next] {
                return path[start...].min { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }!
            }
            position[next] = path.count
            path.append(next)
            current = next
        }
        return current
    }

    /// Every linked id with the id it resolves to.
    package var resolvedLinks: [(id: String, actor: String)] {
        links.keys.sorted().map { ($0, resolve($0)) }
    }
}
