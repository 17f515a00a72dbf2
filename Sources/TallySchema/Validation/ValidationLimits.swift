/// Size limits every event must respect, registry or not.
public struct ValidationLimits: Sendable, Hashable {
    /// The most bytes of one event as an NDJSON line.
    public var maxEventBytes: Int
    /// The most properties on one event.
    public var maxPropertyCount: Int
    /// The longest property key, in UTF-8 bytes.
    public var maxKeyLength: Int
    /// The longest string value (property or identity), in UTF-8 bytes.
    public var maxValueLength: Int
    /// The longest event name, in UTF-8 bytes.
    public var maxNameLength: Int

    /// 32 KiB events, 64 properties, 256-byte keys, 128-byte names, 4 KiB values.
    public init(
        maxEventBytes: Int = 32 * 1024,
        maxPropertyCount: Int = 64,
        maxKeyLength: Int = 256,
        maxValueLength: Int = 4 * 1024,
        maxNameLength: Int = 128
    ) {
        self.maxEventBytes = maxEventBytes
        self.maxPropertyCount = maxPropertyCount
        self.maxKeyLength = maxKeyLength
        self.maxValueLength = maxValueLength
        self.maxNameLength = maxNameLength
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
