import TallyCore

/// The NDJSON dialects `tally ingest` (and the collector) read.
public enum SourceFormat: String, Sendable, Hashable, CaseIterable {
    /// tally's own envelope (DESIGN.md): one event per line.
    case tally
    /// Segment spec messages (`track`, `page`, `screen`, `identify`, `group`, `alias`), one per line,
    /// or Segment's batch wrapper `{"batch": [...], "sentAt": …, "context": …}`.
    case segment
    /// PostHog events (capture API or batch export rows), one per line, or `{"batch": [...]}`.
    case posthog
    /// Decides per line: a `batch` wrapper by its first message; `occurred_at` → tally; a Segment
    /// `type` → segment; `event` → posthog; anything else is read as tally (and rejected with its
    /// reason).
    case auto

    /// The format of a line that is not tally's (no `occurred_at`), for ``auto``.
    package static func detect(_ line: ForeignLine) -> SourceFormat {
        if let batch = line.batch {
            guard let first = batch.first ?? nil else { return .segment }
            return detect(first) ?? .segment
        }
        return detect(line.top) ?? .tally
    }

    private static func detect(_ message: ForeignLine.Message) -> SourceFormat? {
        if message.has("occurred_at") { return .tally }
        if let type = message.member("type")?.stringValue, SegmentMessageMapper.callTypes.contains(type) {
            return .segment
        }
        return message.has("event") ? .posthog : nil
    }
}
