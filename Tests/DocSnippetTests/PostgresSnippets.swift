// The code samples of TallyPostgres.docc (running the pipeline with PostgreSQL), compiled and
// exercised by the tests below.

import Foundation
import Logging
import TallyCore
import TallyFileStore
import TallyPipeline
import TallyPostgres
import TallyTestSupport
import Testing

// MARK: - Create the tables

/// Creates or updates tally's tables as the database owner; the login the sink uses (a member of
/// `tally_writer`) may not create tables. The migrations are the ones built into TallyPostgres,
/// the schema this release writes.
func migrate(ownerURL: String) async throws -> Migrator.Outcome {
    let connection = try await PostgresConnection.connect(ownerURL)
    do {
        let outcome = try await Migrator().migrate(connection)
        await connection.close()
        return outcome
    } catch {
        await connection.close()
        throw error
    }
}

// MARK: - Load events

/// A server's pipeline into PostgreSQL. The default configuration suits a server: a full queue
/// blocks (a request waits rather than losing events), batches of up to 1,000 events leave at
/// least every second. Dead letters go to a directory of their own.
func makePostgresPipeline(databaseURL: String, deadLetterDirectory: String, logger: Logger) -> EventPipeline {
    EventPipeline(
        sinks: [PostgresSink(conninfo: databaseURL, logger: logger)],
        deadLetters: FileRejectSink(directory: deadLetterDirectory),
        configuration: PipelineConfiguration(),
        logger: logger
    )
}

// MARK: - Handle errors

/// What to tell an operator about a database error: whether waiting can fix it, and the error's
/// description (the SQLSTATE and the server's message; no password, no event's values).
func advice(for error: PostgresError) -> String {
    if error.code == .migration { return "the migrations do not match the database: \(error)" }
    return error.errorClass == .transient
        ? "the database is unavailable for now; tally retries: \(error)"
        : "the database refused tally; fix its set-up (roles, tables): \(error)"
}

// MARK: - Tests

@Suite("Docs: the PostgreSQL samples")
struct PostgresSnippetTests {
    @Test("migrate, then the pipeline loads into PostgreSQL; a re-sent batch stores nothing twice")
    func pipelineIntoPostgres() async throws {
        let database = try await TestDatabase.create()
        let outcome = try await migrate(ownerURL: database.url)
        #expect(!outcome.applied.isEmpty && outcome.alreadyApplied.isEmpty)
        let again = try await migrate(ownerURL: database.url)
        #expect(again.applied.isEmpty && again.alreadyApplied == outcome.applied)

        let deadLetters = NSTemporaryDirectory() + "tally-docs-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: deadLetters) }
        let pipeline = makePostgresPipeline(
            databaseURL: database.url,
            deadLetterDirectory: deadLetters,
            logger: Logger(label: "docs")
        )
        var ids = UUIDv7Generator()
        let now = Timestamp.now()
        let events = (0..<10).map { _ in
            EventEnvelope(eventID: ids.next(at: now), name: "search_viewed", feature: "search", occurredAt: now)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pipeline.run() }
            try await pipeline.send(contentsOf: events)
            await pipeline.flush()
            try await pipeline.send(contentsOf: events)
            pipeline.shutdown()
            try await group.waitForAll()
        }
        #expect(try await TestDatabase.eventCount(database.url) == 10)
        #expect(pipeline.statistics.deadLettered == 0)
        await database.drop()
    }

    @Test("the advice says whether waiting helps, and never prints the password")
    func errorAdvice() {
        let refused = PostgresError(.server, sqlState: "42501", message: "permission denied for table events")
        #expect(advice(for: refused).hasPrefix("the database refused tally"))
        let lost = PostgresError(
            .connection,
            message: "connection to postgresql://tally:s3cr3t@db/x failed: Connection refused",
            secret: "s3cr3t"
        )
        #expect(advice(for: lost).hasPrefix("the database is unavailable for now"))
        #expect(!advice(for: lost).contains("s3cr3t"))
        #expect(advice(for: PostgresError(.migration, message: "edited")).hasPrefix("the migrations"))
    }
}
