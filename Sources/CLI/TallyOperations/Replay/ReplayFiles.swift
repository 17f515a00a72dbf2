import Foundation
import TallyCore
import TallyFileStore
import TallyIngest
import TallyPipeline
import TallyPostgres

/// `tally replay [FILE ...]`: the files chosen, the store's lock taken, the sink opened, and failures
/// turned into the command's messages and exit codes.
struct ReplayFiles {
    var files: [String]
    var sink: ReplayCommand.Sink
    var dataDirectory: String
    var decoder: ReplayDecoder
    var dryRun: Bool

    func run(database: DatabaseOption, shouldStop: @escaping @Sendable () -> Bool) async throws -> ReplayReport {
        let layout = FileStoreLayout(root: dataDirectory)
        var paths = files
        if paths.isEmpty {
            guard FileManager.default.fileExists(atPath: dataDirectory) else {
                throw CommandFailure(
                    .noInput,
                    "no file store at \(dataDirectory) (pass --data-dir, set TALLY_DATA_DIR, or name the files)"
                )
            }
            do {
                paths = try layout.failedFiles().map(\.path)
            } catch {
                throw CommandFailure(.ioError, "cannot list \(dataDirectory): \(error)")
            }
        }
        // The store's lock, against a compact or another replay rewriting the same files; with
        // PostgreSQL as the sink and files named outside any store, there is none to take.
        var lock: MaintenanceLock?
        if sink == .file || Directory.exists(dataDirectory) {
            do {
                if !dryRun { try Directory.checkWritable(dataDirectory) }
                lock = try MaintenanceLock(layout: layout) {
                    Terminal.error("waiting: another tally compact or tally replay is working on \(dataDirectory)")
                }
            } catch {
                throw CommandFailure(
                    .cannotCreate,
                    "cannot write to \(dataDirectory) (\(error)); choose another --data-dir"
                )
            }
        }
        defer { withExtendedLifetime(lock) {} }
        let eventSink: any EventSink
        switch sink {
        case .file:
            eventSink = FileSink(directory: dataDirectory)
        case .postgres:
            if !dryRun { try await database.checkReadyForEvents() }
            eventSink = PostgresSink(conninfo: database.conninfo, maxConcurrentWrites: 1)
        }
        let job = ReplayJob(
            options: ReplayJob.Options(decoder: decoder, fileStore: sink == .file ? layout : nil, dryRun: dryRun),
            sink: eventSink
        )
        do {
            let report = try await job.run(paths: paths, shouldStop: shouldStop)
            try await eventSink.shutdown()
            return report
        } catch let error as PostgresError {
            try? await eventSink.shutdown()
            throw CommandFailure(database: error, doing: "cannot store the replayed events (the file is as it was)")
        } catch let error as IOError {
            try? await eventSink.shutdown()
            throw CommandFailure(
                .ioError,
                "\(error): the file being replayed is as it was; run the same command again (nothing is stored twice)"
            )
        }
    }
}
