public import TallyCore
import TallySchema
public import Tracking

/// The `TrackerContract` feature modules are given: `track()` stamps an id and a timestamp and
/// hands the event to the pipeline without waiting, whatever the pipeline is doing.
///
/// Cheap to copy; copies share the id generator and the identity.
public struct PipelineTracker: TrackerContract, Sendable {
    private struct State {
        var generator: UUIDv7Generator
        var identity: TrackerIdentity
        /// Whether each event type tracked so far is a `TypedTrackingEventContract`: asking the
        /// runtime costs about 100 ns a call, a look here (under the lock `track()` takes anyway) a
        /// few. An app has a few dozen event types; past the bound, types are asked every time.
        var typedTypes: [(type: ObjectIdentifier, typed: Bool)] = []
        static let maxTypedTypes = 256
    }

    private let buffer: EventBuffer
    private let state: Locked<State>
    /// The feature stamped on every event, when the tracker was made for one.
    public let feature: String?
    /// App and device facts stamped on every event.
    public let context: EventContext?

    private let strictValidator: EventValidator?

    /// What a tracker stamps at `track()` after its own fields: the app-side library's identity,
    /// session and super properties. Runs on the caller's thread, so it must be cheap and never block.
    package typealias Stamp = @Sendable (inout EventEnvelope) -> Void
    private let stamp: Stamp?

    init(
        buffer: EventBuffer,
        feature: String?,
        identity: TrackerIdentity,
        context: EventContext?,
        strictValidator: EventValidator?,
        stamp: Stamp? = nil
    ) {
        self.buffer = buffer
        self.strictValidator = strictValidator
        self.feature = feature
        self.context = context
        self.stamp = stamp
        state = Locked(State(generator: UUIDv7Generator(), identity: identity))
    }

    /// Tracks an event: never blocks. If the queue is full under `dropOldest`, the oldest queued event
    /// makes room; after shutdown the event is refused. Both are counted in ``EventPipeline/statistics``.
    public func track(_ event: any TrackingEventContract) {
        let now = Timestamp.now().truncatedToMicroseconds
        let eventType = ObjectIdentifier(type(of: event))
        let (id, identity, known) = state.withLock { state in
            (state.generator.next(at: now), state.identity, state.typedTypes.first { $0.type == eventType }?.typed)
        }
        // Typed values as they are; the strings of a plain contract as given (the envelope then
        // says so, and validation reads them as the plan's types).
        let properties: EventProperties
        if known == false {
            properties = EventProperties(strings: event.properties)
        } else {
            let typed = event as? any TypedTrackingEventContract
            properties = typed.map(EventProperties.init(typed:)) ?? EventProperties(strings: event.properties)
            if known == nil {
                state.withLock { state in
                    if state.typedTypes.count < State.maxTypedTypes {
                        state.typedTypes.append((eventType, typed != nil))
                    }
                }
            }
        }
        var envelope = EventEnvelope(
            eventID: id,
            name: event.name,
            feature: feature,
            properties: properties,
            occurredAt: now,
            receivedAt: now,
            userID: identity.userID,
            anonymousID: identity.anonymousID,
            sessionID: identity.sessionID,
            context: context
        )
        if let stamp { stamp(&envelope) }
        if let strictValidator {
            // The `strict` policy, for development and tests: a tracking-plan violation is a bug at this call site.
            let result = strictValidator.validate(envelope)
            precondition(result.isValid, "tally: invalid event \(event.name): \(result.summary)")
        }
        _ = buffer.offer(envelope)
    }

    /// The identity stamped on events from now on.
    public var identity: TrackerIdentity {
        get { state.withLock { $0.identity } }
        nonmutating set { state.withLock { $0.identity = newValue } }
    }
}
