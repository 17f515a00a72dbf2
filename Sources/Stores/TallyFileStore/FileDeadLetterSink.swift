import TallyCore
public import TallyPipeline

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Keeps dead letters in the file store: one NDJSON line per event, in a file per UTC day of
/// failure, written and fsynced before ``store(_:)`` returns.
///
/// `{"failed_at":"…","sink":"postgres","reason":"…","attempts":5,"event":{…the envelope…}}`
///
/// The system calls run on a ``BlockingIO`` queue of its own, off the cooperative pool, one
/// letter at a time.
public final class FileDeadLetterSink: DeadLetterSink {
    /// Where the files go.
    public let layout: FileStoreLayout
    private let io = BlockingIO(label: "tally.dead-letter")

    /// A dead-letter sink under `directory` (created when missing).
    public init(directory: String = FileStoreLayout.defaultRoot) {
        layout = FileStoreLayout(root: directory)
    }

    public func store(_ letter: DeadLetter) async throws {
        var bytes: [UInt8] = []
        for event in letter.events {
            bytes.append(contentsOf: #"{"failed_at":""#.utf8)
            letter.failedAt.appendRFC3339(to: &bytes)
            bytes.append(contentsOf: #"","sink":"#.utf8)
            JSONWriter.appendString(letter.sinkName, to: &bytes)
            bytes.append(contentsOf: #","reason":"#.utf8)
            JSONWriter.appendString(letter.reason, to: &bytes)
            bytes.append(contentsOf: #","attempts":"#.utf8)
            JSONWriter.appendInteger(Int64(letter.attempts), to: &bytes)
            bytes.append(contentsOf: #","event":"#.utf8)
            event.appendNDJSON(to: &bytes)
            bytes.removeLast()  // the envelope's newline
            bytes.append(contentsOf: "}\n".utf8)
        }
        let (directory, path) = (layout.deadLetterDirectory, layout.deadLetterFile(day: letter.failedAt.utcDate))
        try await io.run { [bytes] _ throws(IOError) in
            try Directory.create(directory)
            // Under the file's lock, which `tally replay` and `tally compact` take to rewrite it.
            var descriptor: Int32 = -1
            defer { if descriptor >= 0 { close(descriptor) } }
            try FileLock.append(bytes, to: &descriptor, path: path)
            if fsync(descriptor) != 0 { throw IOError(.fsync, path: path, errno: errno) }
            try DayFiles.syncDirectory(directory)
        }
    }
}
