public import TallyCore

/// The context every event carries (Segment's names: `app`, `os`, `device`, `locale`, `timezone`,
/// `library`, `network`), filled automatically and overridable.
///
/// App name, version and build come from the main bundle where it has them (Apple platforms),
/// else from ``appName``, ``appVersion`` and ``appBuild``; what you set here wins over the bundle.
/// ``overrides`` wins over everything automatic, a tracker's own context over that, and an
/// enrichment hook can change any of it.
public struct ContextConfiguration: Sendable, Hashable {
    /// Whether the context is filled at all (off: events carry only their trackers' contexts).
    public var automatic: Bool
    /// The app's name, marketing version and build, when the bundle does not say (Linux) or to
    /// replace what it says.
    public var appName: String?
    public var appVersion: String?
    public var appBuild: String?
    /// Fields and members that replace the automatic ones (a member of `additional` replaces the
    /// member of that name).
    public var overrides: EventContext?

    /// The automatic context, no overrides.
    public init(
        automatic: Bool = true,
        appName: String? = nil,
        appVersion: String? = nil,
        appBuild: String? = nil,
        overrides: EventContext? = nil
    ) {
        self.automatic = automatic
        self.appName = appName
        self.appVersion = appVersion
        self.appBuild = appBuild
        self.overrides = overrides
    }
}
