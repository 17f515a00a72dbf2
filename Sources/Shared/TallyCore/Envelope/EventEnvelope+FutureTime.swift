extension EventEnvelope {
    /// How far after its receipt an event may have occurred by its device's clock: 24 hours, so a
    /// device merely in another time zone, or a day off, keeps its own time (PostHog allows 23).
    package static let maximumTimeAhead: Int64 = 24 * 3_600 * 1_000_000_000

    /// Places an event from the future at its receipt: when ``occurredAt`` is more than
    /// ``maximumTimeAhead`` after ``receivedAt``, it becomes the corrected time (Segment's
    /// `received_at − (sent_at − occurred_at)`, never after the receipt) when the client sent
    /// `sent_at`, else ``receivedAt``; the device's time is kept in ``deviceOccurredAt``.
    ///
    /// A re-send arrives at another moment and would be placed elsewhere: stores keep the first
    /// placement of an id and give it to every copy (see docs/formats.md). Returns whether the
    /// event was moved; an event already placed (``deviceOccurredAt`` set) never is.
    @discardableResult
    package mutating func placeIfFromTheFuture() -> Bool {
        guard deviceOccurredAt == nil, let receivedAt,
            case let (ahead, false) = occurredAt.nanosecondsSinceEpoch.subtractingReportingOverflow(
                receivedAt.nanosecondsSinceEpoch
            ),
            ahead > Self.maximumTimeAhead
        else { return false }
        let corrected = correctedAt.map { $0 < receivedAt ? $0 : receivedAt } ?? receivedAt
        deviceOccurredAt = occurredAt
        occurredAt = corrected.truncatedToMicroseconds
        return true
    }
}
