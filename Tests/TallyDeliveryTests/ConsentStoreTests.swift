import Foundation
import Logging
import TallyCore
import Testing

@testable import TallyDelivery

@Suite("Consent remembered in the outbox directory")
struct ConsentStoreTests {
    static let logger = Logger(label: "test.consent")

    @Test("a new install takes the default without writing it; a choice is written and read at the next launch")
    func remembered() throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        _ = try fixture.open()
        let first = ConsentStore(layout: fixture.layout, defaultState: .pending, logger: Self.logger)
        #expect(first.state == .pending)
        #expect(!FileManager.default.fileExists(atPath: fixture.directory + "/consent.json"))
        try first.set(.denied)
        let text = try String(contentsOfFile: fixture.directory + "/consent.json", encoding: .utf8)
        #expect(text.hasPrefix(#"{"consent":"denied","changed_at":""#))
        // The next launch: the file wins over the default.
        #expect(ConsentStore(layout: fixture.layout, defaultState: .granted, logger: Self.logger).state == .denied)
        #expect(fixture.files(fixture.layout.temporary).allSatisfy { $0 == "reserve" })
    }

    @Test("another process's change is seen at the next refresh")
    func sharedDirectory() throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        _ = try fixture.open()
        let app = ConsentStore(layout: fixture.layout, defaultState: .granted, logger: Self.logger)
        let extensionProcess = ConsentStore(layout: fixture.layout, defaultState: .granted, logger: Self.logger)
        try app.set(.pending)
        #expect(extensionProcess.state == .granted)
        #expect(extensionProcess.refresh() == .pending)
        try app.set(.granted)
        #expect(extensionProcess.refresh() == .granted)
    }

    @Test("a file that cannot be read holds uploads (pending) until the app sets consent again")
    func corrupt() throws {
        let fixture = OutboxFixture()
        defer { fixture.remove() }
        _ = try fixture.open()
        try "{\"consent\":\"maybe\"}".write(
            toFile: fixture.directory + "/consent.json",
            atomically: true,
            encoding: .utf8
        )
        let store = ConsentStore(layout: fixture.layout, defaultState: .granted, logger: Self.logger)
        #expect(store.state == .pending)
        try store.set(.granted)
        #expect(ConsentStore(layout: fixture.layout, defaultState: .denied, logger: Self.logger).state == .granted)
    }
}
