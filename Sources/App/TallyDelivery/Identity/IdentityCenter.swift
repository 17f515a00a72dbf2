import Foundation
import TallyCore

/// Who the app's events are about, at run time: the install's anonymous id, the signed-in user,
/// the session and the super properties, stamped on each event at `track()` (one lock, no I/O),
/// changed by identify, alias, group and reset, and saved to `identity.json` with the batches.
///
/// Identity calls and tally's own events (session, lifecycle) are offered to the pipeline under
/// the same lock that changes the state, so they are queued before any event that carries the
/// change.
final class IdentityCenter: Sendable {
    struct State {
        var install: InstallState
        /// Nil when sessions are off.
        var sessions: SessionMachine?
        var ids = UUIDv7Generator()
        var superProperties: [String: PropertyValue] = [:]
        /// ``superProperties`` as they travel in an envelope (nil when there are none).
        var carrier: EventContext?
        /// As last written to `identity.json`.
        var saved: InstallState?
    }

    private let state: Locked<State>
    private let offer: @Sendable (EventEnvelope) -> Void
    private let sessionEvents: Bool
    /// The least advance of a session's last activity worth a save of its own.
    private let activitySaveStep: Int64
    let store: IdentityStore

    /// - Parameters:
    ///   - install: the state read at launch (with this launch's app version).
    ///   - saved: what `identity.json` holds now (nil: nothing yet).
    ///   - offer: hands an envelope to the pipeline without waiting.
    init(
        install: InstallState,
        saved: InstallState?,
        sessions: SessionConfiguration?,
        store: IdentityStore,
        offer: @escaping @Sendable (EventEnvelope) -> Void
    ) {
        let machine = sessions.map {
            SessionMachine(
                current: install.session,
                idleTimeout: $0.idleTimeout.nanoseconds,
                maxLength: $0.maxLength.nanoseconds
            )
        }
        state = Locked(State(install: install, sessions: machine, saved: saved))
        sessionEvents = sessions?.events ?? false
        activitySaveStep = min(60_000_000_000, (sessions?.idleTimeout.nanoseconds ?? 0) / 10)
        self.store = store
        self.offer = offer
    }

    // MARK: track()

    /// Stamps the identity, the session and the super properties on an event being tracked; an
    /// id the tracker set itself wins. May queue `session_ended` / `session_started` first.
    func stamp(_ envelope: inout EventEnvelope) {
        let now = envelope.occurredAt
        let (userID, anonymousID, sessionID, carrier) = state.withLock { state in
            (state.install.userID, state.install.anonymousID, touchSession(&state, at: now), state.carrier)
        }
        if envelope.userID == nil, let userID { envelope.userID = userID }
        if envelope.anonymousID == nil { envelope.anonymousID = anonymousID }
        if envelope.sessionID == nil, let sessionID { envelope.sessionID = sessionID }
        if let carrier {
            if var own = envelope.context {
                SuperPropertiesCarrier.attach(carrier, to: &own)
                envelope.context = own
            } else {
                envelope.context = carrier
            }
        }
    }

    /// Advances the session for an event at `now` (under the lock); returns its id.
    private func touchSession(_ state: inout State, at now: Timestamp) -> String? {
        guard var machine = state.sessions else { return nil }
        let step = machine.touch(at: now.nanosecondsSinceEpoch) { state.ids.next(at: now).description }
        state.sessions = machine
        let current = machine.current
        if case .started(let ended) = step, sessionEvents {
            if let ended { offer(endEvent(&state, ended, at: now)) }
            var started = makeEvent(&state, name: SessionEvents.started, at: now, properties: [:])
            started.sessionID = current?.id
            offer(started)
        }
        return current?.id
    }

    /// `session_ended` of `ended`, at its last activity.
    private func endEvent(_ state: inout State, _ ended: Session, at now: Timestamp) -> EventEnvelope {
        var event = makeEvent(
            &state,
            name: SessionEvents.ended,
            at: now,
            properties: ["duration_ms": .integer(max(0, ended.lastActivityAt - ended.startedAt) / 1_000_000)]
        )
        event.sessionID = ended.id
        event.occurredAt = Timestamp(nanosecondsSinceEpoch: ended.lastActivityAt).truncatedToMicroseconds
        return event
    }

    // MARK: Identity calls

    /// An identity record (identify, group, alias), made and queued under the lock after `change`.
    func record(
        _ kind: EventKind,
        traits: [String: PropertyValue] = [:],
        change: @Sendable (inout InstallState) -> (groupID: String?, previousID: String?)
    ) {
        let now = Timestamp.now().truncatedToMicroseconds
        state.withLock { state in
            let extra = change(&state.install)
            var envelope = EventEnvelope(
                eventID: state.ids.next(at: now),
                name: kind.rawValue,
                properties: EventProperties(traits),
                occurredAt: now,
                receivedAt: now,
                userID: state.install.userID,
                anonymousID: state.install.anonymousID,
                sessionID: state.sessions?.liveSession(at: now.nanosecondsSinceEpoch)?.id,
                kind: kind
            )
            envelope.groupID = extra.groupID
            envelope.previousID = extra.previousID
            offer(envelope)
        }
    }

    /// Logout: a new anonymous id, no user, no group; the session ends (`session_ended` when
    /// session events are on) and the next event starts one.
    func reset() {
        let now = Timestamp.now().truncatedToMicroseconds
        state.withLock { state in
            if var machine = state.sessions, let ended = machine.end() {
                state.sessions = machine
                // With the ids of the user who leaves.
                if sessionEvents { offer(endEvent(&state, ended, at: now)) }
            }
            state.install.anonymousID = UUID().uuidString.lowercased()
            state.install.userID = nil
            state.install.groupID = nil
        }
    }

    /// One of tally's own events (feature `tally`: lifecycle), stamped like a tracked one.
    func track(_ name: String, properties: [String: PropertyValue]) {
        let now = Timestamp.now().truncatedToMicroseconds
        state.withLock { state in
            let sessionID = touchSession(&state, at: now)
            var event = makeEvent(&state, name: name, at: now, properties: properties)
            event.sessionID = sessionID
            offer(event)
        }
    }

    /// A `tally` feature event with the identity of `state` and the super properties.
    private func makeEvent(
        _ state: inout State,
        name: String,
        at now: Timestamp,
        properties: [String: PropertyValue]
    ) -> EventEnvelope {
        EventEnvelope(
            eventID: state.ids.next(at: now),
            name: name,
            feature: SessionEvents.feature,
            properties: EventProperties(properties),
            occurredAt: now,
            receivedAt: now,
            userID: state.install.userID,
            anonymousID: state.install.anonymousID,
            context: state.carrier
        )
    }

    // MARK: Super properties

    /// Replaces the super properties (merged into every event from now on; an event's own wins).
    func setSuperProperties(_ properties: [String: PropertyValue]) {
        let carrier = SuperPropertiesCarrier.context(properties)
        state.withLock {
            $0.superProperties = properties
            $0.carrier = carrier
        }
    }

    var superProperties: [String: PropertyValue] { state.withLock { $0.superProperties } }

    // MARK: Reading and saving

    /// The identity stamped on events now.
    var current: (userID: String?, anonymousID: String, groupID: String?, sessionID: String?) {
        state.withLock { ($0.install.userID, $0.install.anonymousID, $0.install.groupID, $0.sessions?.current?.id) }
    }

    /// Writes `identity.json` if the ids, the session or the app version changed, or the session's
    /// last activity moved on by a tenth of the idle timeout (at most a minute): a relaunch then
    /// decides about the session with that precision. `force` writes any change. Runs on the
    /// outbox's queue.
    func saveIfChanged(force: Bool = false) {
        let (current, saved) = state.withLock { state -> (InstallState, InstallState?) in
            var install = state.install
            install.session = state.sessions?.current
            return (install, state.saved)
        }
        guard current != saved else { return }
        if !force, var unchanged = saved, let session = current.session, let previous = saved?.session,
            session.id == previous.id
        {
            unchanged.session = session
            if unchanged == current && session.lastActivityAt - previous.lastActivityAt < activitySaveStep { return }
        }
        guard store.save(current) else { return }
        state.withLock { $0.saved = current }
    }
}
