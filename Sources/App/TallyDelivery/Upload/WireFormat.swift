/// What the uploader sends.
public enum WireFormat: String, Sendable, Hashable, CaseIterable {
    /// `POST {endpoint}/v1/events`: gzip NDJSON of tally envelopes, `Authorization: Bearer KEY`.
    case tally
    /// `POST {endpoint}/v1/batch`: gzip `{"batch":[Segment track messages],"sentAt":…}`, HTTP Basic
    /// `KEY:`, for any Segment-compatible endpoint.
    case segment
}
