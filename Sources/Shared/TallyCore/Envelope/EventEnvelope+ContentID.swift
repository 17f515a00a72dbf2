extension EventEnvelope {
    /// The id of an event that came without one: ``EventID/init(contentOf:)`` of its canonical
    /// NDJSON line without `event_id`, `sent_at` and `received_at`. Sending the same event again,
    /// later or through another path, gives the same id, so it is stored once; the fields a re-send
    /// changes never enter it.
    package var contentID: EventID {
        var stripped = self
        stripped.eventID = EventID(high: 0, low: 0)
        stripped.sentAt = nil
        stripped.receivedAt = nil
        return EventID(contentOf: stripped.ndjsonLine)
    }
}
