/// Size limits every event must respect, registry or not.
public struct ValidationLimits: Sendable, Hashable {
    /// The default of ``maxEventBytes``, 32 KiB: one limit for events tracked in an app, sent to
    /// `tally serve` and read by `tally ingest`, the same as Segment's 32 KB per message, so an
    /// event one of them takes is never too large for another.
    public static let defaultMaxEventBytes = 32 * 1024

    /// The most bytes of one event as its envelope's NDJSON line, without the newline.
    public var maxEventBytes: Int
    /// The most properties on one event.
    public var maxPropertyCount: Int
    /// The longest property key, in UTF-8 bytes.
    public var maxKeyLength: Int
    /// The longest string value (property or identity), in UTF-8 bytes.
    public var maxValueLength: Int
    /// The longest event name (and feature), in UTF-8 bytes.
    public var maxNameLength: Int
    /// The deepest nesting inside a property value (`{"a": {"b": [1]}}` is 3 levels).
    public var maxDepth: Int
    /// The most values inside one event's nested property values (every member and element counts).
    public var maxNestedValues: Int

    /// 32 KiB events, 256 top-level properties, 256-byte keys, 255-byte names, 16 KiB strings,
    /// 16 levels of nesting, 4,096 nested values. Exceeding any of them rejects the event with
    /// `too_large` and the path at fault; nothing is ever truncated.
    public init(
        maxEventBytes: Int = defaultMaxEventBytes,
        maxPropertyCount: Int = 256,
        maxKeyLength: Int = 256,
        maxValueLength: Int = 16 * 1024,
        maxNameLength: Int = 255,
        maxDepth: Int = 16,
        maxNestedValues: Int = 4_096
    ) {
        self.maxEventBytes = maxEventBytes
        self.maxPropertyCount = maxPropertyCount
        self.maxKeyLength = maxKeyLength
        self.maxValueLength = maxValueLength
        self.maxNameLength = maxNameLength
        self.maxDepth = maxDepth
        self.maxNestedValues = maxNestedValues
    }
}

/// What happens to an event that fails validation.
public enum ValidationPolicy: String, Sendable, Hashable, CaseIterable {
    /// The default: the event goes to the dead-letter store with its verdict; the rest of its batch goes on.
    case reject
    /// The event is kept, with its violations recorded on it.
    case annotate
    /// For development and tests: fail loudly where the event was tracked.
    case strict
}
