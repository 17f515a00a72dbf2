/// One event as tally moves and stores it: the envelope of DESIGN.md, one NDJSON line.
///
/// Only ``name`` and ``occurredAt`` are required of producers; the pipeline stamps
/// ``eventID`` once (it never changes, so retries and re-runs deduplicate) and
/// ``receivedAt`` when the event enters it.
///
/// A value type with copy-on-write storage: an envelope is one pointer wide, so queues, batches
/// and fan-out to several sinks move pointers, not 250 bytes of fields. The fields live in a
/// `ManagedBuffer` header and are reached through its pointer, which spares every access the
/// dynamic exclusivity check a class's stored `var` would cost.
// @unchecked: the storage is copy-on-write and never mutated while shared, so the value is as
// safe to send as its fields, which are all Sendable.
public struct EventEnvelope: Hashable, @unchecked Sendable {
    @usableFromInline
    struct Fields {
        @usableFromInline var eventID: EventID
        @usableFromInline var name: String
        @usableFromInline var feature: String?
        @usableFromInline var properties: EventProperties
        @usableFromInline var occurredAt: Timestamp
        @usableFromInline var sentAt: Timestamp?
        @usableFromInline var receivedAt: Timestamp?
        @usableFromInline var userID: String?
        @usableFromInline var anonymousID: String?
        @usableFromInline var sessionID: String?
        @usableFromInline var context: EventContext?
        @usableFromInline var schemaVersion: String?
        @usableFromInline var violations: [String]?
        @usableFromInline var stringProperties: Bool
        /// The rarer fields, one pointer (nil for a tracked event): copying an envelope's fields
        /// on the validation path stays as cheap as before they existed.
        @usableFromInline var foreign: ForeignFields?

        @usableFromInline
        init(
            eventID: EventID,
            name: String,
            feature: String?,
            properties: EventProperties,
            occurredAt: Timestamp,
            sentAt: Timestamp?,
            receivedAt: Timestamp?,
            userID: String?,
            anonymousID: String?,
            sessionID: String?,
            context: EventContext?,
            schemaVersion: String?,
            violations: [String]?,
            stringProperties: Bool,
            foreign: ForeignFields?
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
            self.violations = violations
            self.stringProperties = stringProperties
            self.foreign = foreign
        }
    }

    @usableFromInline
    final class Storage: ManagedBuffer<Fields, UInt8> {
        @inlinable
        static func make(_ fields: Fields) -> Storage {
            unsafeDowncast(Storage.create(minimumCapacity: 0) { _ in fields }, to: Storage.self)
        }

        @inlinable
        var fields: UnsafeMutablePointer<Fields> {
            withUnsafeMutablePointerToHeader { $0 }
        }

        @inlinable
        func copy() -> Storage { Storage.make(fields.pointee) }
    }

    @usableFromInline var storage: Storage

    @inlinable
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// The event's identity: a UUIDv7 minted at `track()`, or derived from an input line's bytes.
    @inlinable public var eventID: EventID {
        get { storage.fields.pointee.eventID }
        set {
            makeUnique()
            storage.fields.pointee.eventID = newValue
        }
    }
    /// `episode_list_viewed` for tally's own features; events from other sources keep their names
    /// (`Order Completed`, `$pageview`).
    @inlinable public var name: String {
        get { storage.fields.pointee.name }
        set {
            makeUnique()
            storage.fields.pointee.name = newValue
        }
    }
    /// The feature module (`episode`); resolved from the registry when absent.
    @inlinable public var feature: String? {
        get { storage.fields.pointee.feature }
        set {
            makeUnique()
            storage.fields.pointee.feature = newValue
        }
    }
    /// String keys to JSON values (objects and arrays too).
    @inlinable public var properties: EventProperties {
        get { storage.fields.pointee.properties }
        set {
            makeUnique()
            storage.fields.pointee.properties = newValue
        }
    }
    /// Device time: when the event happened.
    @inlinable public var occurredAt: Timestamp {
        get { storage.fields.pointee.occurredAt }
        set {
            makeUnique()
            storage.fields.pointee.occurredAt = newValue
        }
    }
    /// Upload time, when a client batches events before sending them.
    @inlinable public var sentAt: Timestamp? {
        get { storage.fields.pointee.sentAt }
        set {
            makeUnique()
            storage.fields.pointee.sentAt = newValue
        }
    }
    /// Pipeline time: when tally accepted the event.
    @inlinable public var receivedAt: Timestamp? {
        get { storage.fields.pointee.receivedAt }
        set {
            makeUnique()
            storage.fields.pointee.receivedAt = newValue
        }
    }
    /// The signed-in user, if any.
    @inlinable public var userID: String? {
        get { storage.fields.pointee.userID }
        set {
            makeUnique()
            storage.fields.pointee.userID = newValue
        }
    }
    /// A stable per-install id for users who are not signed in.
    @inlinable public var anonymousID: String? {
        get { storage.fields.pointee.anonymousID }
        set {
            makeUnique()
            storage.fields.pointee.anonymousID = newValue
        }
    }
    /// The app session.
    @inlinable public var sessionID: String? {
        get { storage.fields.pointee.sessionID }
        set {
            makeUnique()
            storage.fields.pointee.sessionID = newValue
        }
    }
    /// App and device facts.
    @inlinable public var context: EventContext? {
        get { storage.fields.pointee.context }
        set {
            makeUnique()
            storage.fields.pointee.context = newValue
        }
    }
    /// SchemaVer `MODEL-REVISION-ADDITION` of the event's schema; latest registered when absent.
    @inlinable public var schemaVersion: String? {
        get { storage.fields.pointee.schemaVersion }
        set {
            makeUnique()
            storage.fields.pointee.schemaVersion = newValue
        }
    }
    /// Set only under the `annotate` validation policy: the event was kept although it broke
    /// these rules (`type_mismatch at $.properties.position: expected integer`).
    @inlinable public var violations: [String]? {
        get { storage.fields.pointee.violations }
        set {
            makeUnique()
            storage.fields.pointee.violations = newValue
        }
    }

    /// Whether the properties come from a producer that can only send strings (the
    /// `[String: String]` of `TrackingEventContract.properties`): only then does validation read
    /// a numeric or boolean string as the type the plan declares (`"3"` → `3`). Typed sources
    /// (JSON, generated events) are checked with plain JSON Schema semantics.
    @inlinable public var stringProperties: Bool {
        get { storage.fields.pointee.stringProperties }
        set {
            makeUnique()
            storage.fields.pointee.stringProperties = newValue
        }
    }

    /// The event's id as its source sent it, when that was not a UUID (a Segment `messageId`, a
    /// hash): ``eventID`` is then its name-based UUID (``EventID/init(foreignID:)``).
    @inlinable public var sourceID: String? {
        get { storage.fields.pointee.foreign?.sourceID ?? nil }
        set { updateForeign { $0.sourceID = newValue } }
    }

    /// What the record is: an event (`track`, the default) or an identity call (`identify`, `group`,
    /// `alias`), which stores keep apart from events.
    @inlinable public var kind: EventKind {
        get { storage.fields.pointee.foreign?.kind ?? .track }
        set { updateForeign { $0.kind = newValue } }
    }
    /// The group of a `group` call.
    @inlinable public var groupID: String? {
        get { storage.fields.pointee.foreign?.groupID ?? nil }
        set { updateForeign { $0.groupID = newValue } }
    }
    /// The previous id of an `alias` call (the anonymous or old id now known as ``userID``).
    @inlinable public var previousID: String? {
        get { storage.fields.pointee.foreign?.previousID ?? nil }
        set { updateForeign { $0.previousID = newValue } }
    }

    /// The share of users whose events of this kind the device sent (`sample_rate`, 0 < rate < 1):
    /// the event stands for `1 / rate` events in estimated totals. Nil when not sampled (rate 1).
    @inlinable public var sampleRate: Double? {
        get { storage.fields.pointee.foreign?.sampleRate ?? nil }
        set { updateForeign { $0.sampleRate = newValue } }
    }

    /// The device's own `occurred_at` of an event that was more than
    /// ``EventEnvelope/maximumTimeAhead`` after its receipt and was placed at that receipt
    /// (``placeIfFromTheFuture()``); nil for every other event.
    @inlinable public var deviceOccurredAt: Timestamp? {
        get { storage.fields.pointee.foreign?.deviceOccurredAt ?? nil }
        set { updateForeign { $0.deviceOccurredAt = newValue } }
    }

    /// Edits the rarer fields, keeping none stored when all have their defaults.
    @inlinable
    mutating func updateForeign(_ edit: (inout ForeignFields) -> Void) {
        makeUnique()
        var foreign = storage.fields.pointee.foreign ?? ForeignFields()
        edit(&foreign)
        storage.fields.pointee.foreign = foreign.nilIfEmpty
    }

    /// Creates an envelope; `stringProperties` nil means whether `properties` were made from
    /// strings (``EventProperties/init(strings:)``).
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
        schemaVersion: String? = nil,
        violations: [String]? = nil,
        stringProperties: Bool? = nil,
        sourceID: String? = nil,
        kind: EventKind = .track,
        groupID: String? = nil,
        previousID: String? = nil,
        sampleRate: Double? = nil,
        deviceOccurredAt: Timestamp? = nil
    ) {
        storage = Storage.make(
            Fields(
                eventID: eventID,
                name: name,
                feature: feature,
                properties: properties,
                occurredAt: occurredAt,
                sentAt: sentAt,
                receivedAt: receivedAt,
                userID: userID,
                anonymousID: anonymousID,
                sessionID: sessionID,
                context: context,
                schemaVersion: schemaVersion,
                violations: violations,
                stringProperties: stringProperties ?? properties.holdsStrings,
                foreign: sourceID == nil && kind == .track && groupID == nil && previousID == nil && sampleRate == nil
                    && deviceOccurredAt == nil
                    ? nil
                    : ForeignFields(
                        sourceID: sourceID,
                        kind: kind,
                        groupID: groupID,
                        previousID: previousID,
                        sampleRate: sampleRate,
                        deviceOccurredAt: deviceOccurredAt
                    )
            )
        )
    }

    /// The identity summaries count: the user id, else the anonymous id.
    public var actorID: String? { userID ?? anonymousID }

    public static func == (lhs: EventEnvelope, rhs: EventEnvelope) -> Bool {
        if lhs.storage === rhs.storage { return true }
        return lhs.eventID == rhs.eventID
            && lhs.name == rhs.name
            && lhs.feature == rhs.feature
            && lhs.properties == rhs.properties
            && lhs.occurredAt == rhs.occurredAt
            && lhs.sentAt == rhs.sentAt
            && lhs.receivedAt == rhs.receivedAt
            && lhs.userID == rhs.userID
            && lhs.anonymousID == rhs.anonymousID
            && lhs.sessionID == rhs.sessionID
            && lhs.context == rhs.context
            && lhs.schemaVersion == rhs.schemaVersion
            && lhs.violations == rhs.violations
            && lhs.stringProperties == rhs.stringProperties
            && lhs.storage.fields.pointee.foreign == rhs.storage.fields.pointee.foreign
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(eventID)
        hasher.combine(name)
        hasher.combine(feature)
        hasher.combine(properties)
        hasher.combine(occurredAt)
        hasher.combine(sentAt)
        hasher.combine(receivedAt)
        hasher.combine(userID)
        hasher.combine(anonymousID)
        hasher.combine(sessionID)
        hasher.combine(context)
        hasher.combine(schemaVersion)
        hasher.combine(violations)
        hasher.combine(stringProperties)
        hasher.combine(storage.fields.pointee.foreign)
    }
}
