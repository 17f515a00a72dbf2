/// The fields of an envelope that tracked events never set: the kind of an identity record, its
/// group or previous id, an id as sent by another source, the sample rate of a sampled event, and
/// the device's time of an event placed at its receipt.
/// Kept behind one optional box in the envelope's storage.
@usableFromInline
struct ForeignFields: Hashable, Sendable {
    @usableFromInline var sourceID: String?
    @usableFromInline var kind: EventKind = .track
    @usableFromInline var groupID: String?
    @usableFromInline var previousID: String?
    @usableFromInline var sampleRate: Double?
    @usableFromInline var deviceOccurredAt: Timestamp?

    @usableFromInline
    init(
        sourceID: String? = nil,
        kind: EventKind = .track,
        groupID: String? = nil,
        previousID: String? = nil,
        sampleRate: Double? = nil,
        deviceOccurredAt: Timestamp? = nil
    ) {
        self.sourceID = sourceID
        self.kind = kind
        self.groupID = groupID
        self.previousID = previousID
        self.sampleRate = sampleRate
        self.deviceOccurredAt = deviceOccurredAt
    }

    /// Whether every field has its default.
    @usableFromInline var isEmpty: Bool {
        sourceID == nil && kind == .track && groupID == nil && previousID == nil && sampleRate == nil
            && deviceOccurredAt == nil
    }

    /// Nil when empty.
    @usableFromInline var nilIfEmpty: ForeignFields? { isEmpty ? nil : self }
}
