/// One app session: its id, when it started and when the app last tracked in it (nanoseconds
/// since the epoch, device time). Persisted in the outbox's `identity.json`.
package struct Session: Sendable, Hashable, Codable {
    package var id: String
    package var startedAt: Int64
    package var lastActivityAt: Int64

    package init(id: String, startedAt: Int64, lastActivityAt: Int64) {
        self.id = id
        self.startedAt = startedAt
        self.lastActivityAt = lastActivityAt
    }

    private enum CodingKeys: String, CodingKey {
        case id
        case startedAt = "started_at"
        case lastActivityAt = "last_activity_at"
    }
}
