import TallyCore

/// Tracks the lifecycle events a configuration asks for: the launch's at once, the transitions
/// as its hook reports them (once each: see ``LifecycleRules``).
final class LifecycleReporter: Sendable {
    private let rules: Locked<LifecycleRules>
    private let events: Set<LifecycleEvent>
    private let hook: (any LifecycleHook)?
    private let identity: IdentityCenter
    private let started = Locked(false)

    init(_ configuration: LifecycleConfiguration, version: String?, build: String?, identity: IdentityCenter) {
        rules = Locked(LifecycleRules(version: version, build: build))
        events = configuration.events
        self.identity = identity
        #if canImport(UIKit) || canImport(AppKit)
            hook = configuration.hook ?? AppleLifecycleHook()
        #else
            hook = configuration.hook
        #endif
    }

    /// Tracks installed or updated (from `stored`, the state the previous launch left), then opened.
    func launch(stored: InstallState?) {
        for (event, properties) in rules.withLock({ $0.launch(stored: stored) }) where events.contains(event) {
            identity.track(event.rawValue, properties: properties)
        }
    }

    /// Starts the hook (once).
    func start() {
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        guard first, let hook else { return }
        hook.start { [self] transition in handle(transition) }
    }

    func handle(_ transition: LifecycleTransition) {
        // Under the rules' lock, so that two reports racing are tracked in the order decided.
        rules.withLock { rules in
            guard let (event, properties) = rules.transition(transition), events.contains(event) else { return }
            identity.track(event.rawValue, properties: properties)
        }
    }
}
