import Foundation
import TallyCore
import TallyOperations
import TallyPipeline
import TallyReports
import TallySchema
import Testing

@Suite("Ingest and summary errors")
struct IngestErrorTests {
    @Test("an input that cannot be opened: cannot_open, the system's reason, nothing read")
    func inputCannotBeOpened() async throws {
        #expect(IngestJob.InputError.Code.cannotOpen.description == "cannot_open")
        #expect(IngestJob.InputError.Code.cannotRead.description == "cannot_read")
        let missing = NSTemporaryDirectory() + "tally-missing-" + UUID().uuidString + ".ndjson"
        let pipeline = EventPipeline(sinks: [])
        let job = IngestJob(
            options: IngestJob.Options(
                validator: EventValidator(registry: nil),
                maxLineLength: 1 << 20,
                rejectsPath: NSTemporaryDirectory() + "tally-rejects-" + UUID().uuidString + ".ndjson"
            ),
            pipeline: pipeline
        )
        let error = await #expect(throws: IngestJob.InputError.self) { try await job.run(sources: [missing]) }
        #expect(error?.code == .cannotOpen)
        #expect(error?.source == missing)
        #expect(error?.underlying.code == .open)
        #expect(error?.description == "open \(missing): \(String(cString: strerror(ENOENT)))")
    }

    @Test("contradictory store options: a stable code, and a message without the connection URL")
    func storeConflicts() {
        let url = "postgresql://tally:s3cr3t@db.internal/analytics"
        let cases: [(SummaryStore.Kind?, String?, SummaryStore.Conflict.Code, String)] = [
            (.file, nil, .databaseURLWithFileStore, "database_url_with_file_store"),
            (.postgres, "data", .dataDirectoryWithPostgresStore, "data_dir_with_postgres_store"),
            (nil, "data", .bothStores, "both_stores"),
        ]
        for (store, dataDirectory, code, name) in cases {
            #expect(code.description == name)
            do {
                _ = try SummaryStore.choose(
                    store: store,
                    dataDirectory: dataDirectory,
                    databaseURL: store == .postgres ? nil : url,
                    environment: ["DATABASE_URL": url]
                )
                Issue.record("\(name): no conflict")
            } catch {
                #expect(error.code == code)
                #expect(!error.description.contains("s3cr3t"), "\(error)")
            }
        }
    }
}
