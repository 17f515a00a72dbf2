import TallyCore
import Testing

@testable import TallyDelivery

/// Which lifecycle events a launch and the platform's transitions make, without I/O.
@Suite("Lifecycle rules")
struct LifecycleRulesTests {
    @Test("a first launch is installed then opened; the same version again only opened; another is updated")
    func launches() {
        let rules = LifecycleRules(version: "2.0", build: "20")
        #expect(rules.launch(stored: nil).map(\.0) == [.installed, .opened])
        #expect(rules.launch(stored: nil)[0].1 == ["version": "2.0", "build": "20"])
        let same = InstallState(anonymousID: "a", appVersion: "2.0", appBuild: "20")
        #expect(rules.launch(stored: same).map(\.0) == [.opened])
        #expect(rules.launch(stored: same)[0].1["from_background"] == .bool(false))
        let older = InstallState(anonymousID: "a", appVersion: "1.9", appBuild: "19")
        let updated = rules.launch(stored: older)
        #expect(updated.map(\.0) == [.updated, .opened])
        #expect(updated[0].1 == ["version": "2.0", "build": "20", "previous_version": "1.9", "previous_build": "19"])
    }

    @Test("background and foreground alternate: a repeated or a first foreground makes no event")
    func transitions() {
        var rules = LifecycleRules(version: "1", build: "1")
        #expect(rules.transition(.enteredForeground)?.0 == nil, "AppKit's became-active at launch")
        #expect(rules.transition(.enteredBackground)?.0 == .backgrounded)
        #expect(rules.transition(.enteredBackground)?.0 == nil)
        #expect(rules.transition(.enteredForeground)?.0 == .foregrounded)
        #expect(rules.transition(.enteredForeground)?.0 == nil)
    }
}
