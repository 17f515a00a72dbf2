/// The application lifecycle events, with the names Segment's SDKs use (so existing dashboards
/// keep working), tracked as events of tally's own feature `tally`.
public enum LifecycleEvent: String, Sendable, Hashable, CaseIterable {
    /// The first launch of an install (no `identity.json` yet): `version`, `build`.
    case installed = "Application Installed"
    /// A launch with another version or build than the last one: `version`, `build`,
    /// `previous_version`, `previous_build`.
    case updated = "Application Updated"
    /// Every launch: `from_background` (false), `version`, `build`.
    case opened = "Application Opened"
    /// The app went to the background.
    case backgrounded = "Application Backgrounded"
    /// The app came back to the foreground: `version`, `build`.
    case foregrounded = "Application Foregrounded"
}

/// What the platform reports to a ``LifecycleHook``.
public enum LifecycleTransition: Sendable, Hashable {
    case enteredBackground
    case enteredForeground
}

/// Where lifecycle transitions come from: the platform's notifications (`AppleLifecycleHook` on
/// Apple platforms), or a test that drives them.
public protocol LifecycleHook: Sendable {
    /// Starts reporting transitions to `report`, from any thread, for as long as the process runs.
    /// Called once.
    func start(reporting report: @escaping @Sendable (LifecycleTransition) -> Void)
}

/// Which lifecycle events are tracked and where the transitions come from.
public struct LifecycleConfiguration: Sendable {
    /// The events tracked (each optional); all by default.
    public var events: Set<LifecycleEvent>
    /// Background and foreground transitions; nil: the platform's (`AppleLifecycleHook` on
    /// Apple platforms, none elsewhere).
    public var hook: (any LifecycleHook)?

    /// Every lifecycle event, from `hook` or the platform.
    public init(events: Set<LifecycleEvent> = Set(LifecycleEvent.allCases), hook: (any LifecycleHook)? = nil) {
        self.events = events
        self.hook = hook
    }
}
