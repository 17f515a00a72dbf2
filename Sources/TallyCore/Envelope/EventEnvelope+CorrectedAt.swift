extension EventEnvelope {
    /// The device's time corrected for its clock, Segment's rule: `received_at − (sent_at −
    /// occurred_at)`, when the client said when it sent the event and the collector (or the
    /// pipeline) stamped when it arrived; nil otherwise. Stored beside ``occurredAt``, which stays
    /// what the device said (so a re-send, with a new `sent_at`, is still a duplicate).
    public var correctedAt: Timestamp? {
        guard let sentAt, let receivedAt else { return nil }
        return Timestamp(
            nanosecondsSinceEpoch: receivedAt.nanosecondsSinceEpoch
                - (sentAt.nanosecondsSinceEpoch - occurredAt.nanosecondsSinceEpoch)
        )
    }
}
