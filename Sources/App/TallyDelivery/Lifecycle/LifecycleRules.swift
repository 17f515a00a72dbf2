import TallyCore

/// Which lifecycle events a launch or a transition makes, without I/O: pure rules, tested alone.
struct LifecycleRules: Sendable, Hashable {
    var version: String?
    var build: String?
    /// Whether the app is in the background (a foreground transition counts only after one).
    var inBackground = false

    /// The launch's events: installed (no stored state), or updated (another version or build than
    /// stored), then opened.
    func launch(stored: InstallState?) -> [(LifecycleEvent, [String: PropertyValue])] {
        var events: [(LifecycleEvent, [String: PropertyValue])] = []
        if let stored {
            if stored.appVersion != version || stored.appBuild != build {
                var properties = versionProperties
                properties["previous_version"] = stored.appVersion.map(PropertyValue.string)
                properties["previous_build"] = stored.appBuild.map(PropertyValue.string)
                events.append((.updated, properties))
            }
        } else {
            events.append((.installed, versionProperties))
        }
        var opened = versionProperties
        opened["from_background"] = .bool(false)
        events.append((.opened, opened))
        return events
    }

    /// The event of a transition, if any: a second background in a row, or a foreground without a
    /// background before it (AppKit's became-active at launch), makes none.
    mutating func transition(_ transition: LifecycleTransition) -> (LifecycleEvent, [String: PropertyValue])? {
        switch transition {
        case .enteredBackground:
            guard !inBackground else { return nil }
            inBackground = true
            return (.backgrounded, [:])
        case .enteredForeground:
            guard inBackground else { return nil }
            inBackground = false
            return (.foregrounded, versionProperties)
        }
    }

    private var versionProperties: [String: PropertyValue] {
        var properties: [String: PropertyValue] = [:]
        properties["version"] = version.map(PropertyValue.string)
        properties["build"] = build.map(PropertyValue.string)
        return properties
    }
}
