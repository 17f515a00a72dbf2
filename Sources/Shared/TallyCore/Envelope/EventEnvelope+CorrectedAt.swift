extension EventEnvelope {
    /// The device's time corrected for its clock, Segment's rule: `received_at − (sent_at −
    /// occurred_at)`, when the client said when it sent the event and the collector (or the
    /// pipeline) stamped when it arrived; nil otherwise. Stored beside ``occurredAt``, which stays
    /// what the device said (so a re-send, with a new `sent_at`, is still a duplicate). Computed
    /// from the device's own time, also for an event placed at its receipt.
    package var correctedAt: Timestamp? {
        guard let sentAt, let receivedAt else { return nil }
        let deviceTime = deviceOccurredAt ?? occurredAt
        // Times from 1677 to 2262 can differ by more than 64 bits of nanoseconds hold: such a
        // pair of clocks corrects nothing.
        let (delay, overflow) = sentAt.nanosecondsSinceEpoch.subtractingReportingOverflow(
            deviceTime.nanosecondsSinceEpoch
        )
        guard !overflow,
            case (let corrected, false) = receivedAt.nanosecondsSinceEpoch.subtractingReportingOverflow(delay)
        else { return nil }
        return Timestamp(nanosecondsSinceEpoch: corrected)
    }
}
