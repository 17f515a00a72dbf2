#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads newline-delimited records from a file descriptor in fixed-size chunks: memory stays
/// bounded by the chunk size plus ``maxLineLength`` whatever the input.
///
/// Lines end at `\n`; a `\r` before it is removed (CRLF input). A last line without `\n` is
/// still delivered, marked as unterminated, so that callers can decide what a torn tail means.
package struct LineReader {
    /// One line handed to the caller; the bytes are valid only during the callback.
    package struct Line {
        /// The line's bytes, without `\r\n` / `\n`.
        package var bytes: UnsafeBufferPointer<UInt8>
        /// 1-based.
        package var number: Int
        /// False for a last line that had no newline.
        package var isTerminated: Bool
        /// Set instead of ``bytes`` (which is then empty) when the line was longer than the limit.
        package var oversizedLength: Int?
    }

    private let descriptor: Int32
    private let path: String
    /// Lines longer than this are reported by length, never buffered whole.
    package let maxLineLength: Int
    private let chunkSize: Int

    /// A reader over an open descriptor it does not close.
    package init(descriptor: Int32, path: String, maxLineLength: Int = 1 << 20, chunkSize: Int = 1 << 20) {
        self.descriptor = descriptor
        self.path = path
        self.maxLineLength = maxLineLength
        self.chunkSize = chunkSize
    }

    /// Bytes read so far, for progress.
    package private(set) var bytesRead = 0

    // State carried between chunks.
    private var pending: [UInt8] = []
    private var oversized: Int?
    private var lineNumber = 0
    private var finished = false

    /// Calls `body` for every line, in order.
    package mutating func forEachLine(_ body: (Line) throws -> Void) throws {
        while try readChunk(body) {}
    }

    /// Reads one chunk and calls `body` for each line it completes (the last call delivers the
    /// final unterminated line, if any). Returns false once the input is exhausted, so that async
    /// callers can do their own work between chunks.
    package mutating func readChunk(_ body: (Line) throws -> Void) throws -> Bool {
        guard !finished else { return false }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
        defer { chunk.deallocate() }
        var count: Int
        repeat {
            count = read(descriptor, chunk.baseAddress, chunkSize)
        } while count < 0 && errno == EINTR
        if count < 0 { throw IOError(.read, path: path, errno: errno) }
        return try consume(UnsafeRawBufferPointer(rebasing: chunk[0..<count]), body)
    }

    /// ``readChunk(_:)`` with the `read(2)` on `io`'s thread, off the cooperative pool.
    ///
    /// - Throws: `CancellationError` when `interruption` is requested (or the task cancelled) while
    ///   no input comes; an unfinished last line is then dropped, as it was not complete.
    package mutating func readChunk(
        on io: BlockingIO,
        interruption: Interruption = Interruption(),
        _ body: (Line) throws -> Void
    ) async throws -> Bool {
        guard !finished else { return false }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
        defer { chunk.deallocate() }
        // The buffer is handed to the queue's thread and used only until `run` returns.
        nonisolated(unsafe) let target = chunk
        let (descriptor, path) = (descriptor, path)
        let count = try await io.run(interruption: interruption) { interruption throws(IOError) in
            try BlockingIO.read(descriptor, into: target, path: path, interruption: interruption)
        }
        guard let count else { throw CancellationError() }
        return try consume(UnsafeRawBufferPointer(rebasing: chunk[0..<count]), body)
    }

    /// Splits `filled` (a chunk just read; empty at end of input) into lines.
    private mutating func consume(_ filled: UnsafeRawBufferPointer, _ body: (Line) throws -> Void) throws -> Bool {
        let count = filled.count
        if count == 0 {
            finished = true
            if let length = oversized {
                try deliverOversized(length, number: lineNumber + 1, isTerminated: false, body)
            } else if !pending.isEmpty {
                let last = pending
                pending = []
                try last.withUnsafeBufferPointer { try deliver($0, number: lineNumber + 1, isTerminated: false, body) }
            }
            return false
        }
        bytesRead += count
        var start = 0
        let filled = filled.assumingMemoryBound(to: UInt8.self)
        while start < count {
            let found = memchr(filled.baseAddress! + start, Int32(UInt8(ascii: "\n")), count - start)
            guard let found else {
                // No end of line in this chunk: keep the piece unless the line is already too long.
                if oversized != nil {
                    oversized! += count - start
                } else if pending.count + count - start > maxLineLength {
                    oversized = pending.count + count - start
                    pending = []
                } else {
                    pending.append(contentsOf: filled[start..<count])
                }
                break
            }
            let newline = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - filled.baseAddress!
            lineNumber += 1
            let piece = UnsafeBufferPointer(rebasing: filled[start..<newline])
            if let length = oversized {
                try deliverOversized(length + piece.count, number: lineNumber, isTerminated: true, body)
                oversized = nil
            } else if pending.isEmpty {
                try deliver(piece, number: lineNumber, isTerminated: true, body)
            } else if pending.count + piece.count > maxLineLength {
                try deliverOversized(pending.count + piece.count, number: lineNumber, isTerminated: true, body)
                pending = []
            } else {
                pending.append(contentsOf: piece)
                let line = pending
                pending = []
                try line.withUnsafeBufferPointer { try deliver($0, number: lineNumber, isTerminated: true, body) }
            }
            start = newline + 1
        }
        return true
    }

    private func deliver(
        _ bytes: UnsafeBufferPointer<UInt8>,
        number: Int,
        isTerminated: Bool,
        _ body: (Line) throws -> Void
    ) throws {
        var bytes = bytes
        if isTerminated, bytes.last == UInt8(ascii: "\r") { bytes = UnsafeBufferPointer(rebasing: bytes.dropLast()) }
        if bytes.count > maxLineLength {
            try deliverOversized(bytes.count, number: number, isTerminated: isTerminated, body)
            return
        }
        try body(Line(bytes: bytes, number: number, isTerminated: isTerminated, oversizedLength: nil))
    }

    private func deliverOversized(_ length: Int, number: Int, isTerminated: Bool, _ body: (Line) throws -> Void) throws
    {
        try body(
            Line(
                bytes: UnsafeBufferPointer(start: nil, count: 0),
                number: number,
                isTerminated: isTerminated,
                oversizedLength: length
            )
        )
    }
}
