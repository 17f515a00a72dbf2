import Foundation
import TallyOperations
import TallySchema
import TallyServer
import Testing

/// The keys files `tally serve` and `tally dashboard` read: a missing file is 66, a file that is
/// wrong (or names a registry that is not there, or holds no reader key for the dashboard) 65.
@Suite("keys wiring")
struct KeysWiringTests {
    static func directory() throws -> String {
        let directory = NSTemporaryDirectory() + "tally-keys-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    static func keys(path: String?, allowAnonymous: Bool = false) -> CollectorKeys {
        let limits = ValidationLimits()
        return CollectorKeys(
            path: path,
            fallback: EventValidator(registry: nil, limits: limits),
            limits: limits,
            allowAnonymous: allowAnonymous
        )
    }

    static func failure(_ body: () throws -> Void) -> CommandFailure? {
        do {
            try body()
            return nil
        } catch {
            return error as? CommandFailure
        }
    }

    @Test("without a keys file the collector has no keys; a missing one is 66, one that is not JSON 65")
    func collectorKeysFile() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try Self.keys(path: nil, allowAnonymous: true).load().count == 0)
        let missing = Self.failure { _ = try Self.keys(path: directory + "/keys.json").load() }
        #expect(missing?.exitCode == .noInput)
        #expect(missing?.message.contains("tally keys add --keys") == true)
        try "not json".write(toFile: directory + "/broken.json", atomically: true, encoding: .utf8)
        let broken = Self.failure { _ = try Self.keys(path: directory + "/broken.json").load() }
        #expect(broken?.exitCode == .dataError)
    }

    @Test("a key whose registry is not a directory is 65, the registry named from the keys file's directory")
    func missingRegistry() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var file = WriteKeysFile()
        _ = file.add(source: "ios", registry: "plans")
        try file.save(directory + "/keys.json")
        let failure = Self.failure { _ = try Self.keys(path: directory + "/keys.json").load() }
        #expect(failure?.exitCode == .dataError)
        #expect(failure?.message.contains("names the registry \(directory)/plans") == true)
    }

    @Test("the dashboard's keys: none without a file, 66 for a missing one, 65 without a reader key")
    func readerKeys() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try DashboardSetup.readerKeys(nil).isEmpty)
        #expect(Self.failure { _ = try DashboardSetup.readerKeys(directory + "/none.json") }?.exitCode == .noInput)
        var file = WriteKeysFile()
        _ = file.add(source: "ios")
        try file.save(directory + "/keys.json")
        let writers = Self.failure { _ = try DashboardSetup.readerKeys(directory + "/keys.json") }
        #expect(writers?.exitCode == .dataError)
        _ = file.add(source: "team", role: .reader)
        try file.save(directory + "/keys.json")
        #expect(try !DashboardSetup.readerKeys(directory + "/keys.json").isEmpty)
    }
}
