import Foundation
import TallyOperations
import TallySchema
import Testing

/// The stores a writing command opens: each checked before anything is read or served, with the
/// exit codes every command uses.
@Suite("event stores")
struct EventStoresTests {
    static func stores(dataDirectory: String = NSTemporaryDirectory(), conninfo: String? = nil) -> EventStores {
        EventStores(
            dataDirectory: dataDirectory,
            conninfo: conninfo,
            clickhouse: ClickHouseNodes(urls: nil)
        )
    }

    static func failure(_ body: () async throws -> Void) async -> CommandFailure? {
        do {
            try await body()
            return nil
        } catch {
            return error as? CommandFailure
        }
    }

    @Test("ClickHouse without --clickhouse-url is a usage error, for ingest and serve alike")
    func clickhouseWithoutURL() async throws {
        let ingest = await Self.failure { _ = try await Self.stores().ingestSinks([.clickhouse]) }
        #expect(ingest?.exitCode == .usage)
        #expect(ingest?.message == "--store clickhouse needs --clickhouse-url")
        let serve = await Self.failure { _ = try await Self.stores().collectorSinks(.clickhouse, connections: 1) }
        #expect(serve?.exitCode == .usage)
    }

    @Test("a store a command does not write to is a usage error")
    func storesOutOfPlace() async throws {
        let serve = await Self.failure { _ = try await Self.stores().collectorSinks(.stdout, connections: 1) }
        #expect(serve?.exitCode == .usage)
        let replay = await Self.failure { _ = try await Self.stores().replaySink(.clickhouse, dryRun: false) }
        #expect(replay?.exitCode == .usage)
    }

    @Test("a data directory that cannot be made is 73 for the collector")
    func unwritableDataDirectory() async throws {
        let file = NSTemporaryDirectory() + "tally-stores-" + UUID().uuidString
        _ = FileManager.default.createFile(atPath: file, contents: Data())
        defer { try? FileManager.default.removeItem(atPath: file) }
        let failure = await Self.failure {
            _ = try await Self.stores(dataDirectory: file + "/data").collectorSinks(.file, connections: 1)
        }
        #expect(failure?.exitCode == .cannotCreate)
        #expect(failure?.message.contains("choose another --data-dir") == true)
    }

    @Test("a database that cannot be reached is 69 before anything is read")
    func databaseDown() async throws {
        let down = "postgresql://nobody:secret@127.0.0.1:1/tally?connect_timeout=2"
        let failure = await Self.failure { _ = try await Self.stores(conninfo: down).ingestSinks([.file, .postgres]) }
        #expect(failure?.exitCode == .unavailable)
        #expect(failure?.message.contains("secret") == false)
    }

    @Test("ingest writes each store once, sorted, the file store when none is named")
    func ingestKinds() {
        func kinds(_ chosen: [EventStores.Kind]) -> [EventStores.Kind] {
            IngestRun(
                stores: Self.stores(),
                kinds: chosen,
                sources: [],
                validator: .init(registry: nil),
                maxLineLength: 1 << 20,
                maxRejects: nil,
                rejectsPath: nil,
                format: .auto,
                defaultFeature: nil
            ).chosenKinds
        }
        #expect(kinds([]) == [.file])
        #expect(kinds([.stdout, .file, .stdout]) == [.file, .stdout])
        #expect(kinds([.postgres, .clickhouse]) == [.clickhouse, .postgres])
    }
}
