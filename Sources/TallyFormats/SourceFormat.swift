public import TallyCore

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

    /// The format of one parsed line, for ``auto``.
    public static func detect(_ value: JSONValue) -> SourceFormat {
        guard let members = value.objectMembers else { return .tally }
        var hasEvent = false
        var hasSegmentType = false
        for member in members {
            switch member.key {
            case "occurred_at": return .tally
            case "batch":
                if case .array(let messages) = member.value, let first = messages.first {
                    let inner = detect(first)
                    return inner == .tally ? .segment : inner
                }
            case "type":
                if let type = member.value.stringValue, SegmentMessageMapper.callTypes.contains(type) {
                    hasSegmentType = true
                }
            case "event": hasEvent = true
            default: break
            }
        }
        if hasSegmentType { return .segment }
        return hasEvent ? .posthog : .tally
    }
}
