import Foundation
import TallyTestSupport
import Testing

/// `tally summary` reads the store the user named and says which one it read.
@Suite("tally summary: which store (CLI)", .serialized)
struct SummaryStoreTests {
    @Test("an explicit --data-dir wins over DATABASE_URL, and the header and JSON say so")
    func dataDirectoryWinsOverDatabaseURL() async throws {
        let directory = try CLI.temporaryDirectory("store")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let data = try await CLI.store([CLI.event()], in: directory)
        let environment = ["DATABASE_URL": CLI.downDatabase]
        let table = try await CLI.run(["summary", "--data-dir", data], environment: environment)
        #expect(table.status == 0, "\(table.stderr)")
        #expect(
            table.stdout.hasPrefix(
                "store: file \(data) (from --data-dir; DATABASE_URL is set: --store postgres reads that database)\n"
            ),
            "\(table.stdout)"
        )
        let json = try await CLI.json(
            try CLI.run(["summary", "--data-dir", data, "--format", "json"], environment: environment).stdout
        )
        let store = json["store"] as? [String: Any]
        #expect(store?["kind"] as? String == "file")
        #expect(store?["location"] as? String == data)
        #expect(store?["chosen_by"] as? String == "--data-dir")
        // CSV has no header line: the doubt is said on stderr instead.
        let csv = try await CLI.run(["summary", "--data-dir", data, "--format", "csv"], environment: environment)
        #expect(csv.stdout.hasPrefix("feature,events,"))
        #expect(csv.stderr.contains("read file \(data) (from --data-dir; DATABASE_URL is set"))
    }

    @Test("DATABASE_URL alone means PostgreSQL (down: exit 69); --store file reads the file store instead")
    func storeOptionChooses() async throws {
        let directory = try CLI.temporaryDirectory("store")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let data = try await CLI.store([CLI.event()], in: directory)
        let environment = ["DATABASE_URL": CLI.downDatabase, "TALLY_DATA_DIR": data]
        let fromEnvironment = try await CLI.run(["summary"], environment: environment)
        #expect(fromEnvironment.status == 69, "DATABASE_URL chose PostgreSQL, which is down: \(fromEnvironment.stderr)")
        #expect(fromEnvironment.stderr.contains("cannot connect to the database"))
        let file = try await CLI.run(["summary", "--store", "file"], environment: environment)
        #expect(file.status == 0, "\(file.stderr)")
        #expect(file.stdout.hasPrefix("store: file \(data) (from --store)\n"), "\(file.stdout)")
        #expect(file.stdout.contains("1 event in 1 feature"))
        let postgres = try await CLI.run(["summary", "--store", "postgres", "--database-url", CLI.downDatabase])
        #expect(postgres.status == 69)
        let neither = try await CLI.run(["summary"], environment: ["TALLY_DATA_DIR": data])
        #expect(neither.stdout.hasPrefix("store: file \(data) (from TALLY_DATA_DIR)\n"), "\(neither.stdout)")
    }

    @Test("contradictory choices are usage errors (64) that say how to resolve them")
    func contradictions() async throws {
        let both = try await CLI.run(["summary", "--data-dir", "/tmp/x", "--database-url", CLI.downDatabase])
        #expect(both.status == 64)
        #expect(both.stderr.contains("add --store file or --store postgres"))
        let postgresWithDirectory = try await CLI.run(["summary", "--store", "postgres", "--data-dir", "/tmp/x"])
        #expect(postgresWithDirectory.status == 64)
        #expect(postgresWithDirectory.stderr.contains("--data-dir is for --store file"))
        let fileWithURL = try await CLI.run(["summary", "--store", "file", "--database-url", CLI.downDatabase])
        #expect(fileWithURL.status == 64)
        #expect(fileWithURL.stderr.contains("--database-url is for --store postgres"))
    }

    @Test("with a real database: the header names it as the server does, never with the password")
    func postgresHeader() async throws {
        let database = try await TestDatabase.create()
        #expect(try await TestDatabase.tally(["migrate", "--database-url", database.url]).status == 0)
        let directory = try CLI.temporaryDirectory("store")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let data = try await CLI.store([CLI.event()], in: directory)
        let environment = ["DATABASE_URL": database.url, "TALLY_DATA_DIR": data]
        let table = try await CLI.run(["summary"], environment: environment)
        #expect(table.status == 0, "\(table.stderr)")
        let header = table.stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(header.hasPrefix("store: postgres database \(database.name) on 127.0.0.1:"), "\(header)")
        #expect(header.hasSuffix("(from DATABASE_URL; --store file reads the file store in \(data))"), "\(header)")
        let password = URLComponents(string: database.url)?.password ?? "-"
        #expect(!(table.stdout + table.stderr).contains(password))
        #expect(table.stdout.contains("0 events in 0 features"), "an empty database, not the file store's event")
        let json = try await CLI.json(try CLI.run(["summary", "--format", "json"], environment: environment).stdout)
        #expect((json["store"] as? [String: Any])?["kind"] as? String == "postgres")
        #expect((json["store"] as? [String: Any])?["chosen_by"] as? String == "DATABASE_URL")
        let file = try await CLI.run(["summary", "--data-dir", data], environment: environment)
        #expect(file.stdout.contains("1 event in 1 feature"))
        await database.drop()
    }
}
