/// One event as tally moves and stores it: the envelope of DESIGN.md, one NDJSON line.
///
/// Only ``name`` and ``occurredAt`` are required of producers; the pipeline stamps
/// ``eventID`` once (it never changes, so retries and re-runs deduplicate) and
/// ``receivedAt`` when the event enters it.
public struct EventEnvelope: Hashable, Sendable {
    /// The event's identity: a UUIDv7 minted at `track()`, or derived from an input line's bytes.
    public var eventID: EventID
    /// `episode_list_viewed`: lowercase snake_case, `{screen}_{action}`.
    public var name: String
    /// The feature module (`episode`); resolved from the registry when absent.
    public var feature: String?
    /// String keys to scalar values.
    public var properties: EventProperties
    /// Device time: when the event happened.
    public var occurredAt: Timestamp
    /// Upload time, when a client batches events before sending them.
    public var sentAt: Timestamp?
    /// Pipeline time: when tally accepted the event.
    public var receivedAt: Timestamp?
    /// The signed-in user, if any.
    public var userID: String?
    /// A stable per-install id for users who are not signed in.
    public var anonymousID: String?
    /// The app session.
    public var sessionID: String?
    /// App and device facts.
    public var context: EventContext?
    /// SchemaVer `MODEL-REVISION-ADDITION` of the event's schema; latest registered when absent.
    public var schemaVersion: String?

    /// Creates an envelope.
    public init(
        eventID: EventID,
        name: String,
        feature: String? = nil,
        properties: EventProperties = EventProperties(),
        occurredAt: Timestamp,
        sentAt: Timestamp? = nil,
        receivedAt: Timestamp? = nil,
        userID: String? = nil,
        anonymousID: String? = nil,
        sessionID: String? = nil,
        context: EventContext? = nil,
        schemaVersion: String? = nil
    ) {
        self.eventID = eventID
        self.name = name
        self.feature = feature
        self.properties = properties
        self.occurredAt = occurredAt
        self.sentAt = sentAt
        self.receivedAt = receivedAt
        self.userID = userID
        self.anonymousID = anonymousID
        self.sessionID = sessionID
        self.context = context
        self.schemaVersion = schemaVersion
    }

    /// The identity summaries count: the user id, else the anonymous id.
    public var actorID: String? { userID ?? anonymousID }
}
