import Foundation
import TallyCore
import TallyFileStore
import TallyPipeline
import TallyPostgres

/// `tally replay [FILE ...]`: the files chosen, the store's lock taken, the sink opened, and failures
/// turned into the command's messages and exit codes.
package struct ReplayFiles {
    /// The files to replay; none: every dead-letter and rejects file of the data directory.
    package var files: [String]
    /// Where replayed events go: ``EventStores/Kind/file`` or ``EventStores/Kind/postgres``.
    package var store: EventStores.Kind
    package var decoder: ReplayDecoder
    package var dryRun: Bool

    package init(files: [String], store: EventStores.Kind, decoder: ReplayDecoder, dryRun: Bool) {
        self.files = files
        self.store = store
        self.decoder = decoder
        self.dryRun = dryRun
    }

    /// Replays into `stores`, stopping between files once `shouldStop` says so.
    package func run(stores: EventStores, shouldStop: @escaping @Sendable () -> Bool) async throws -> ReplayReport {
        let dataDirectory = stores.dataDirectory
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
        if store == .file || Directory.exists(dataDirectory) {
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
        let eventSink = try await stores.replaySink(store, dryRun: dryRun)
        let job = ReplayJob(
            options: ReplayJob.Options(decoder: decoder, fileStore: store == .file ? layout : nil, dryRun: dryRun),
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
