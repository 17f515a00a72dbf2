import Foundation
import TallyCore
package import TallySchema

/// Writes rejected lines as NDJSON a person can read, fix and feed back to `tally ingest`:
/// `{"source":"events.ndjson","line":12,"reason":"type_mismatch","path":"$.properties.position","message":"…","raw":"…"}`.
/// `raw` is the line as text; a line that is not valid UTF-8 also gets `raw_base64`, byte-exact.
/// The file is created on the first reject only.
package final class RejectWriter {
    /// Where rejects go.
    package let path: String
    private var descriptor: Int32 = -1
    private var buffer: [UInt8] = []

    /// A writer to `path` (created with its directory on first use).
    package init(path: String) {
        self.path = path
    }

    deinit {
        try? flush()
        if descriptor >= 0 { close(descriptor) }
    }

    /// Whether anything was written.
    package var isUsed: Bool { descriptor >= 0 }

    /// Records one rejected line.
    package func reject(source: String, line: Int, violation: EventViolation, raw: UnsafeBufferPointer<UInt8>?) throws {
        buffer.append(contentsOf: #"{"source":"#.utf8)
        JSONWriter.appendString(source, to: &buffer)
        buffer.append(contentsOf: #","line":"#.utf8)
        JSONWriter.appendInteger(Int64(line), to: &buffer)
        buffer.append(contentsOf: #","reason":"#.utf8)
        JSONWriter.appendString(violation.code.rawValue, to: &buffer)
        buffer.append(contentsOf: #","path":"#.utf8)
        JSONWriter.appendString(violation.path, to: &buffer)
        buffer.append(contentsOf: #","message":"#.utf8)
        JSONWriter.appendString(violation.message, to: &buffer)
        if let raw {
            let text = String(decoding: raw, as: UTF8.self)
            buffer.append(contentsOf: #","raw":"#.utf8)
            JSONWriter.appendString(text, to: &buffer)
            if !text.utf8.elementsEqual(raw) {
                buffer.append(contentsOf: #","raw_base64":""#.utf8)
                buffer.append(contentsOf: Data(raw).base64EncodedString().utf8)
                buffer.append(UInt8(ascii: "\""))
            }
        }
        buffer.append(contentsOf: "}\n".utf8)
        if buffer.count > 1 << 16 { try flush() }
    }

    /// Writes buffered rejects and fsyncs them.
    package func flush() throws {
        guard !buffer.isEmpty else { return }
        if descriptor < 0 {
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty { try Directory.create(directory) }
        }
        // Under the file's lock, which `tally replay` takes to rewrite it.
        try FileLock.append(buffer, to: &descriptor, path: path)
        buffer.removeAll(keepingCapacity: true)
        if fsync(descriptor) != 0 { throw IOError(.fsync, path: path, errno: errno) }
    }
}
