/// Where an event came from: the app and the device. Every field is optional.
public struct EventContext: Hashable, Sendable {
    /// Marketing version, e.g. `4.2.0`.
    public var appVersion: String?
    /// Build number, e.g. `4217`.
    public var appBuild: String?
    /// `ios`, `macos`, `linux`, …
    public var platform: String?
    /// e.g. `18.1`.
    public var osVersion: String?
    /// BCP 47, e.g. `en-GB`.
    public var locale: String?
    /// Every other member, as sent (a Segment context's `device`, `library`, `ip`, …).
    public var additional: EventProperties

    /// Creates a context.
    public init(
        appVersion: String? = nil,
        appBuild: String? = nil,
        platform: String? = nil,
        osVersion: String? = nil,
        locale: String? = nil,
        additional: EventProperties = EventProperties()
    ) {
        self.appVersion = appVersion
        self.appBuild = appBuild
        self.platform = platform
        self.osVersion = osVersion
        self.locale = locale
        self.additional = additional
    }

    /// Whether no field is set.
    public var isEmpty: Bool {
        appVersion == nil && appBuild == nil && platform == nil && osVersion == nil && locale == nil
            && additional.isEmpty
    }
}
