import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import TallyCore
import TallySchema
import Testing
import UnixSignals

@testable import TallyServer

/// Reloading the keys through the routes: a rotated key and its replacement both accepted, a
/// revoked one refused, and a load that fails leaves the keys as they were.
@Suite("Keys reload")
struct KeysReloaderTests {
    struct TestFailure: Error, CustomStringConvertible {
        var description: String { "cannot read the keys file keys.json: not valid JSON" }
    }

    static func status(_ client: any TestClientProtocol, key: String) async throws -> HTTPResponse.Status {
        try await client.execute(
            uri: "/v1/events",
            method: .post,
            headers: [.authorization: "Bearer \(key)"],
            body: .init(bytes: RouterTests.ndjson(1))
        ).status
    }

    @Test("rotate, revoke and a broken file, reloaded: statuses, kept keys and metrics")
    func reloads() async throws {
        let fixture = RouterTests.Fixture()
        let old = RouterTests.key
        var file = WriteKeysFile(keys: [.init(sha256: WriteKeysFile.hash(old), source: "test-app", feature: "shop")])
        let (new, newEntry, oldEntry) = try file.rotate(old)
        var revokedFile = file
        _ = try revokedFile.revoke(oldEntry.id)
        let revoked = revokedFile
        let next = Locked<Result<WriteKeysFile, TestFailure>>(.success(file))
        let reloader = KeysReloader(
            collector: fixture.collector,
            path: "keys.json",
            signals: await UnixSignalsSequence(trapping: []),
            logger: Logger(label: "test")
        ) {
            WriteKeysFileTests.table(try next.withLock { try $0.get() })
        }
        let statuses = try await fixture.test { client in
            var statuses: [String: [HTTPResponse.Status]] = [:]
            statuses["before", default: []] += [
                try await Self.status(client, key: old), try await Self.status(client, key: new),
            ]
            #expect(await reloader.reload())
            statuses["rotated", default: []] += [
                try await Self.status(client, key: old), try await Self.status(client, key: new),
            ]
            next.withLock { $0 = .failure(TestFailure()) }
            #expect(await !reloader.reload())
            statuses["broken", default: []] += [
                try await Self.status(client, key: old), try await Self.status(client, key: new),
            ]
            next.withLock { $0 = .success(revoked) }
            #expect(await reloader.reload())
            statuses["revoked", default: []] += [
                try await Self.status(client, key: old), try await Self.status(client, key: new),
            ]
            return statuses
        }
        #expect(statuses["before"] == [.ok, .unauthorized])
        #expect(statuses["rotated"] == [.ok, .ok])
        #expect(statuses["broken"] == [.ok, .ok], "the keys loaded before stay")
        #expect(statuses["revoked"] == [.unauthorized, .ok])
        let metrics = String(decoding: fixture.collector.metrics.render(), as: UTF8.self)
        #expect(metrics.contains(#"tally_collector_keys_reloads_total{outcome="applied"} 2"#), "\(metrics)")
        #expect(metrics.contains(#"tally_collector_keys_reloads_total{outcome="failed"} 1"#))
        #expect(metrics.contains(#"tally_collector_rotated_key_requests_total{key_id="\#(oldEntry.id)"} 2"#))
        #expect(metrics.contains(#"tally_collector_write_keys{status="active"} 1"#))
        #expect(metrics.contains(#"tally_collector_write_keys{status="rotated"} 0"#))
        #expect(!metrics.contains(old) && !metrics.contains(new))
        #expect(newEntry.status == .active)
    }

    @Test("without a keys file a reload changes nothing")
    func noKeysFile() async throws {
        let fixture = RouterTests.Fixture(allowAnonymous: true, withKeys: false)
        let reloader = KeysReloader(
            collector: fixture.collector,
            path: nil,
            signals: await UnixSignalsSequence(trapping: []),
            logger: Logger(label: "test")
        ) {
            Issue.record("nothing to load")
            return fixture.collector.keys
        }
        #expect(await !reloader.reload())
    }
}
