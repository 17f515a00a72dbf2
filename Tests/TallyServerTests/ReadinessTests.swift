import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import TallyFileStore
import TallySchema
import Testing

@testable import TallyServer

/// `/readyz` checks every sink the collector writes to, not only where it keeps rejected events.
@Suite("Collector readiness")
struct ReadinessTests {
    static func collector(sink: FileSink, rejects: String) -> Collector {
        Collector(
            configuration: CollectorConfiguration(),
            keys: WriteKeyTable(
                entries: [.init(sha256: WriteKeysFile.hash(RouterTests.key), source: "test")],
                validators: [:],
                fallback: EventValidator(registry: nil),
                allowAnonymous: false
            ),
            sink: sink,
            rejects: FileRejectSink(directory: rejects),
            logger: Logger(label: "test")
        )
    }

    @Test("the file store's directory blocked by a file: /readyz 503; cleared: 200")
    func fileStoreBlocked() async throws {
        let directory = NSTemporaryDirectory() + "tally-ready-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory + "/rejects", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/store"
        // A file where the store's directory belongs: no write can succeed, whoever runs the test.
        #expect(FileManager.default.createFile(atPath: store, contents: Data("in the way".utf8)))
        let collector = Self.collector(sink: FileSink(directory: store), rejects: directory + "/rejects")
        let (blocked, cleared) = try await collector.makeApplication().test(.router) { client in
            let blocked = try await client.execute(uri: "/readyz", method: .get)
            try FileManager.default.removeItem(atPath: store)
            return (blocked, try await client.execute(uri: "/readyz", method: .get))
        }
        #expect(blocked.status == .serviceUnavailable)
        #expect(cleared.status == .ok)
    }
}
