import ArgumentParser
import Foundation
import TallyCore
import TallyDelivery

/// App mode's app-SDK flags: a simulated login and logout, sessions, lifecycle events from a
/// simulated platform, super properties and enrichment hooks.
struct SDKOptions: ParsableArguments {
    @Option(
        name: .long,
        parsing: .unconditional,
        help: "Identify the user (--user-id) after this many visits, as a login would."
    )
    var loginAfter: Int?

    @Option(name: .long, help: "The user id of the simulated login.")
    var userID = "demo-user"

    @Option(name: .long, parsing: .unconditional, help: "Reset the identity (logout) after this many visits.")
    var logoutAfter: Int?

    @Option(name: .long, parsing: .unconditional, help: "Seconds without events that end a session.")
    var sessionTimeout: Double = 1800

    @Flag(name: .long, help: "Track session_started and session_ended.")
    var sessionEvents = false

    @Flag(name: .long, help: "Track the lifecycle events (Application Installed, Opened, …).")
    var lifecycle = false

    @Option(
        name: .long,
        parsing: .unconditional,
        help: "The simulated app goes to the background and back after this many visits."
    )
    var backgroundAfter: Int?

    @Option(name: .long, help: "The app's version (context and lifecycle; Linux has no bundle to read).")
    var appVersion = "1.0.0"

    @Option(name: .long, help: "The app's build.")
    var appBuild = "1"

    @Option(name: .long, help: "A super property KEY=VALUE merged into every event (repeatable).")
    var superProperty: [String] = []

    @Option(name: .long, help: "An enrichment hook adds this property KEY=VALUE to every event (repeatable).")
    var enrich: [String] = []

    @Option(name: .long, help: "An enrichment hook drops the events of this name (repeatable).")
    var dropEvent: [String] = []

    func validate() throws {
        try SecondsOption.check("--session-timeout", sessionTimeout)
        for (option, pairs) in [("--super-property", superProperty), ("--enrich", enrich)] {
            for pair in pairs where Self.split(pair) == nil {
                throw ValidationError("\(option) \(pair.debugDescription): give KEY=VALUE, such as plan=pro.")
            }
        }
    }

    static func split(_ pair: String) -> (String, String)? {
        guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else { return nil }
        return (String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
    }

    /// Adds these settings to `configuration`.
    func apply(to configuration: inout DeliveryConfiguration, hook: any LifecycleHook) {
        configuration.context.appVersion = appVersion
        configuration.context.appBuild = appBuild
        configuration.context.appName = "episode-demo"
        configuration.sessions = SessionConfiguration(idleTimeout: .seconds(sessionTimeout), events: sessionEvents)
        if lifecycle { configuration.lifecycle = LifecycleConfiguration(hook: hook) }
        let added = enrich.compactMap(Self.split)
        if !added.isEmpty {
            configuration.enrichment.append { event in
                // Events only: identity records' properties are the user's traits.
                guard event.kind == .track else { return .keep }
                for (key, value) in added { event.properties[key] = .string(value) }
                return .keep
            }
        }
        let dropped = Set(dropEvent)
        if !dropped.isEmpty {
            configuration.enrichment.append { event in dropped.contains(event.name) ? .drop : .keep }
        }
    }

    /// The super properties of the flags.
    var superProperties: [String: PropertyValue] {
        Dictionary(superProperty.compactMap(Self.split).map { ($0.0, PropertyValue.string($0.1)) }) { _, last in last }
    }
}

/// The demo's simulated platform: reports a background and a foreground when the app says so.
final class DemoLifecycleHook: LifecycleHook, @unchecked Sendable {
    // @unchecked: `report` is only read and written under `lock`.
    private let lock = NSLock()
    private var report: (@Sendable (LifecycleTransition) -> Void)?

    func start(reporting report: @escaping @Sendable (LifecycleTransition) -> Void) {
        lock.withLock { self.report = report }
    }

    func send(_ transition: LifecycleTransition) {
        lock.withLock { report }?(transition)
    }
}
