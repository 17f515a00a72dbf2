#if canImport(UIKit) || canImport(AppKit)
    import Foundation

    /// The platform's lifecycle notifications: UIKit's did-enter-background and
    /// will-enter-foreground, AppKit's did-resign-active and did-become-active. Observed by name
    /// (the names UIKit and AppKit post), so nothing here touches a main-actor type.
    public struct AppleLifecycleHook: LifecycleHook {
        /// Observes `NotificationCenter.default`.
        public init() {}

        public func start(reporting report: @escaping @Sendable (LifecycleTransition) -> Void) {
            #if canImport(UIKit)
                let names: [(String, LifecycleTransition)] = [
                    ("UIApplicationDidEnterBackgroundNotification", .enteredBackground),
                    ("UIApplicationWillEnterForegroundNotification", .enteredForeground),
                ]
            #else
                let names: [(String, LifecycleTransition)] = [
                    ("NSApplicationDidResignActiveNotification", .enteredBackground),
                    ("NSApplicationDidBecomeActiveNotification", .enteredForeground),
                ]
            #endif
            for (name, transition) in names {
                // Observers live as long as the process: the hook is started once per delivery.
                _ = NotificationCenter.default.addObserver(forName: Notification.Name(name), object: nil, queue: nil) {
                    _ in report(transition)
                }
            }
        }
    }
#endif
