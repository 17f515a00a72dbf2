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
    private let directory: String
    private let io = BlockingIO(label: "tally.collector.rejects")

    /// A sink under the file store `root` (its `dead-letter` directory).
    package init(root: String) {
        directory = FileStoreLayout(root: root).deadLetterDirectory
    }

    package func store(_ rejects: [RejectedEvent]) async throws {
        guard let first = rejects.first else { return }
        var bytes: [UInt8] = []
        for reject in rejects { reject.appendNDJSON(to: &bytes) }
        let directory = self.directory
        let path = "\(directory)/collector-rejects-\(first.receivedAt.utcDate.isoString).ndjson"
        try await io.run { [bytes] _ throws(IOError) in
            try Directory.create(directory)
            let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw IOError(.open, path: path, errno: errno) }
            defer { close(descriptor) }
            try FileDescriptorWriter.writeAll(bytes, to: descriptor, path: path)
            if fsync(descriptor) != 0 { throw IOError(.fsync, path: path, errno: errno) }
            // The file's directory entry too, when the file is new.
            let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard directoryDescriptor >= 0 else { throw IOError(.open, path: directory, errno: errno) }
            defer { close(directoryDescriptor) }
            if fsync(directoryDescriptor) != 0 { throw IOError(.fsync, path: directory, errno: errno) }
        }
    }

    package func isReachable() async -> Bool {
        (try? Directory.checkWritable(directory)) != nil || (try? Directory.create(directory)) != nil
    }
}
