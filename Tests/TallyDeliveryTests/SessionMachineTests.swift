import Testing

@testable import TallyDelivery

/// The session rules alone: idle timeout, maximum length, clocks that go backwards, logout.
@Suite("Session state machine")
struct SessionMachineTests {
    static let second: Int64 = 1_000_000_000

    func machine(_ current: Session? = nil) -> SessionMachine {
        SessionMachine(current: current, idleTimeout: 30 * Self.second, maxLength: 120 * Self.second)
    }

    @Test("the first event starts a session; events within the idle timeout continue it")
    func continues() {
        var sessions = machine()
        var next = 0
        let newID = { () -> String in
            next += 1
            return "s\(next)"
        }
        #expect(sessions.touch(at: 0, newID: newID) == .started(ended: nil))
        #expect(sessions.touch(at: 10 * Self.second, newID: newID) == .continued)
        #expect(
            sessions.touch(at: 40 * Self.second, newID: newID) == .continued,
            "30 s after the last event, not the first"
        )
        #expect(sessions.current == Session(id: "s1", startedAt: 0, lastActivityAt: 40 * Self.second))
    }

    @Test("past the idle timeout the next event starts a new session and ends the old one")
    func idle() {
        var sessions = machine(Session(id: "old", startedAt: 0, lastActivityAt: 5 * Self.second))
        let step = sessions.touch(at: 36 * Self.second) { "new" }
        #expect(step == .started(ended: Session(id: "old", startedAt: 0, lastActivityAt: 5 * Self.second)))
        #expect(sessions.current?.id == "new" && sessions.current?.startedAt == 36 * Self.second)
    }

    @Test("a busy session ends at its maximum length")
    func maxLength() {
        var sessions = machine()
        _ = sessions.touch(at: 0) { "a" }
        var ids = ["b"]
        for second in stride(from: Int64(10), through: 110, by: 10) {
            #expect(sessions.touch(at: second * Self.second) { ids.removeFirst() } == .continued)
        }
        #expect(sessions.touch(at: 120 * Self.second) { ids.removeFirst() } != .continued)
        #expect(sessions.current?.id == "b")
    }

    @Test("a clock set back keeps the session and its last activity")
    func clockBack() {
        var sessions = machine(Session(id: "a", startedAt: 100 * Self.second, lastActivityAt: 110 * Self.second))
        #expect(sessions.touch(at: 90 * Self.second) { "b" } == .continued)
        #expect(sessions.current?.lastActivityAt == 110 * Self.second)
    }

    @Test("a relaunch within the idle timeout keeps the persisted session; after it, a new one")
    func relaunch() {
        let persisted = Session(id: "a", startedAt: 0, lastActivityAt: 20 * Self.second)
        var within = machine(persisted)
        #expect(within.touch(at: 45 * Self.second) { "b" } == .continued)
        var after = machine(persisted)
        #expect(after.touch(at: 51 * Self.second) { "b" } == .started(ended: persisted))
    }

    @Test("end() (logout) ends the session; the next event starts one without an ended session")
    func end() {
        var sessions = machine()
        _ = sessions.touch(at: 0) { "a" }
        #expect(sessions.end()?.id == "a")
        #expect(sessions.touch(at: Self.second) { "b" } == .started(ended: nil))
    }
}
