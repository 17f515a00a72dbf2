import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads the lines of a store file from a byte offset, knowing where each ends: a rewrite reads a
/// file without its lock, then, holding the lock, only what was appended meanwhile.
///
/// Unlike ``LineReader`` it keeps lines byte-exact (a `\r` stays) and counts offsets exactly; a
/// line longer than the limit ends the scan with ``LineTooLong`` instead of being skipped, since a
/// rewrite must copy every line it keeps.
package struct StoreFileScanner: Sendable {
    /// A line longer than the scanner's limit: the file cannot be rewritten line by line.
    package struct LineTooLong: Error, CustomStringConvertible {
        /// The file.
        package var path: String
        /// The line's number.
        package var line: Int
        /// The limit.
        package var limit: Int

        package var description: String { "line \(line) is longer than \(limit) bytes" }
    }

    /// One line; `bytes` are valid only during the callback.
    package struct Line {
        /// Without its `\n`.
        package var bytes: UnsafeBufferPointer<UInt8>
        /// 1-based.
        package var number: Int
        /// False for a last line without `\n`.
        package var isTerminated: Bool
    }

    private let descriptor: Int32
    private let path: String
    private let maxLineLength: Int
    private let limit: Int?
    private let includeUnterminated: Bool
    private var position: Int
    private var pending: [UInt8] = []
    private var finished = false
    /// The offset after the last terminated line delivered.
    package private(set) var end: Int
    /// The number of the next line.
    package private(set) var nextNumber: Int

    /// A scanner of `descriptor` (opened for reading; not closed here) from `offset`, the start of
    /// line `firstNumber`, to the end of the file or to `limit` (a line boundary). A last line without
    /// `\n` is delivered only when `includeUnterminated`.
    package init(
        descriptor: Int32,
        path: String,
        from offset: Int = 0,
        firstNumber: Int = 1,
        limit: Int? = nil,
        includeUnterminated: Bool,
        maxLineLength: Int = 64 << 20
    ) {
        self.descriptor = descriptor
        self.path = path
        self.maxLineLength = maxLineLength
        self.limit = limit
        self.includeUnterminated = includeUnterminated
        position = offset
        end = offset
        nextNumber = firstNumber
    }

    /// Calls `body` for every line.
    package mutating func scanAll(_ body: (Line) throws -> Void) throws {
        while try readChunk(body) {}
    }

    /// Reads one chunk (1 MiB) and calls `body` for the lines it completes. Returns false once the
    /// file (or the limit) is reached, so that async callers can do their own work between chunks.
    package mutating func readChunk(_ body: (Line) throws -> Void) throws -> Bool {
        guard !finished else { return false }
        var size = 1 << 20
        if let limit { size = min(size, limit - position) }
        let chunk = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(size, 1))
        defer { chunk.deallocate() }
        var count = 0
        if size > 0 {
            repeat {
                count = pread(descriptor, chunk.baseAddress, size, off_t(position))
            } while count < 0 && errno == EINTR
            if count < 0 { throw IOError(.read, path: path, errno: errno) }
        }
        guard count > 0 else {
            finished = true
            if includeUnterminated && !pending.isEmpty {
                let number = nextNumber
                try pending.withUnsafeBufferPointer { try body(Line(bytes: $0, number: number, isTerminated: false)) }
            }
            return false
        }
        let filled = UnsafeBufferPointer(rebasing: chunk[0..<count])
        var start = 0
        while let newline = firstIndex(of: UInt8(ascii: "\n"), in: filled, from: start) {
            let piece = UnsafeBufferPointer(rebasing: filled[start..<newline])
            let number = nextNumber
            if pending.isEmpty {
                try body(Line(bytes: piece, number: number, isTerminated: true))
            } else {
                pending.append(contentsOf: piece)
                try check(pending.count)
                try pending.withUnsafeBufferPointer { try body(Line(bytes: $0, number: number, isTerminated: true)) }
                pending.removeAll(keepingCapacity: true)
            }
            nextNumber += 1
            start = newline + 1
            end = position + start
        }
        pending.append(contentsOf: filled[start..<count])
        try check(pending.count)
        position += count
        return true
    }

    private func check(_ length: Int) throws {
        if length > maxLineLength { throw LineTooLong(path: path, line: nextNumber, limit: maxLineLength) }
    }
}
