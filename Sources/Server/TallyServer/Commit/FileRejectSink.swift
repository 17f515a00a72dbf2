import TallyCore
import TallyFileStore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Rejected events in the file store's dead-letter directory, one NDJSON line each in
/// `dead-letter/collector-rejects-DAY.ndjson`, written and fsynced before ``store(_:)`` returns.
package final class FileRejectSink: RejectSink {
    private let layout: FileStoreLayout
    private let directory: String
    private let io = BlockingIO(label: "tally.collector.rejects")

    /// A sink under the file store `root` (its `dead-letter` directory).
    package init(root: String) {
        layout = FileStoreLayout(root: root)
        directory = layout.deadLetterDirectory
    }

    package func store(_ rejects: [RejectedEvent]) async throws {
        guard let first = rejects.first else { return }
        var bytes: [UInt8] = []
        for reject in rejects { reject.appendNDJSON(to: &bytes) }
        let directory = self.directory
        let path = layout.collectorRejectsFile(day: first.receivedAt.utcDate)
        try await io.run { [bytes] _ throws(IOError) in
            try Directory.create(directory)
            // Under the file's lock, which `tally replay` and `tally compact` take to rewrite it.
            var descriptor: Int32 = -1
            defer { if descriptor >= 0 { close(descriptor) } }
            try FileLock.append(bytes, to: &descriptor, path: path)
            if fsync(descriptor) != 0 { throw IOError(.fsync, path: path, errno: errno) }
            // The file's directory entry too, when the file is new.
            try Directory.sync(directory)
        }
    }

    package func isReachable() async -> Bool {
        (try? Directory.checkWritable(directory)) != nil || (try? Directory.create(directory)) != nil
    }
}
