import TallyCore

@testable import TallyServer

/// Rejected events kept in memory, for tests of the committer and the routes.
final class InMemoryRejectSink: RejectSink, Sendable {
    private let state = Locked<[RejectedEvent]>([])

    var rejects: [RejectedEvent] { state.withLock { $0 } }

    func store(_ rejects: [RejectedEvent]) async throws {
        state.withLock { $0.append(contentsOf: rejects) }
    }

    func isReachable() async -> Bool { true }
}
