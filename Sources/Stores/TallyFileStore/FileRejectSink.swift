import TallyCore
public import TallyPipeline

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Keeps rejects in the file store, one JSON line each (``TallyPipeline/Reject`` gives the format),
/// appended under the file's lock and fsynced before ``store(_:)`` returns:
///
/// - dead letters in `dead-letter/dead-letter-DAY.ndjson`, by the UTC day they failed;
/// - the collector's rejects in `dead-letter/collector-rejects-DAY.ndjson`, by the day they arrived;
/// - or, for `tally ingest`, every reject in the one rejects file of its run.
///
/// The system calls run on a ``BlockingIO`` queue of its own, off the cooperative pool, one store
/// at a time.
public final class FileRejectSink: RejectSink {
    /// The file store the day files are under.
    public let layout: FileStoreLayout
    /// The one file every reject goes to, when there is one.
    private let file: String?
    private let io = BlockingIO(label: "tally.rejects")

    /// A sink into the day files under the file store `directory` (created when missing).
    public init(directory: String = FileStoreLayout.defaultRoot) {
        layout = FileStoreLayout(root: directory)
        file = nil
    }

    /// A sink appending every reject to `file` (created with its directory on the first reject).
    package init(file: String) {
        layout = FileStoreLayout(root: Directory.parent(of: file))
        self.file = file
    }

    public func store(_ rejects: [Reject]) async throws {
        guard !rejects.isEmpty else { return }
        // One write per file, the files in the order of their first reject.
        var order: [String] = []
        var lines: [String: [UInt8]] = [:]
        for reject in rejects {
            let path = path(of: reject)
            if lines[path] == nil { order.append(path) }
            reject.appendJSONLine(to: &lines[path, default: []])
        }
        let files = order.map { ($0, lines[$0] ?? []) }
        try await io.run { [files] _ throws(IOError) in
            for (path, bytes) in files {
                let directory = Directory.parent(of: path)
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
    }

    /// The file `reject` goes to.
    private func path(of reject: Reject) -> String {
        if let file { return file }
        if case .request = reject.origin { return layout.collectorRejectsFile(day: reject.failedAt.utcDate) }
        return layout.deadLetterFile(day: reject.failedAt.utcDate)
    }
}

extension FileRejectSink: ReadinessProbe {
    /// Whether the directory of the files exists (or can be made) and is writable.
    package func isReachable() async -> Bool {
        let directory = file.map(Directory.parent(of:)) ?? layout.deadLetterDirectory
        return (try? Directory.checkWritable(directory)) != nil || (try? Directory.create(directory)) != nil
    }
}
