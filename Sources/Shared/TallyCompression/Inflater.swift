import CZlib

/// A streaming gzip / deflate decompressor with bounded output: feed it the body chunk by chunk,
/// and it refuses a stream whose output passes a size or a ratio cap as soon as it does, so a
/// bomb costs at most the cap in memory, never what it would inflate to.
///
/// ```swift
/// let inflater = try Inflater(.gzip, limits: .init(maxOutputBytes: 8 << 20, maxRatio: 100))
/// var output: [UInt8] = []
/// for chunk in chunks { try inflater.feed(chunk, into: &output) }
/// try inflater.finish()  // throws `truncated` when the stream stopped early
/// ```
///
/// gzip accepts concatenated members (RFC 1952); deflate accepts the zlib wrapper (RFC 1950, what
/// HTTP's `deflate` means) and raw deflate (RFC 1951, what some clients send instead), told apart
/// by the first two bytes. Not thread-safe: one stream, one owner.
public final class Inflater {
    /// The container format.
    public enum Format: Sendable, Hashable {
        /// RFC 1952 (`Content-Encoding: gzip`), one or more members.
        case gzip
        /// RFC 1950 zlib or RFC 1951 raw deflate (`Content-Encoding: deflate`).
        case deflate
    }

    /// Caps on what one stream may inflate to.
    public struct Limits: Sendable, Hashable {
        /// The most bytes of output.
        public var maxOutputBytes: Int
        /// The most output bytes per input byte, checked once the output passes ``ratioFloor``
        /// (small bodies of repeated text compress far better than 100× without being attacks).
        public var maxRatio: Int
        /// Output below this size is never refused for its ratio.
        public var ratioFloor: Int

        /// 8 MiB, 100×, ratio checked past 256 KiB.
        public init(maxOutputBytes: Int = 8 << 20, maxRatio: Int = 100, ratioFloor: Int = 256 << 10) {
            self.maxOutputBytes = maxOutputBytes
            self.maxRatio = maxRatio
            self.ratioFloor = ratioFloor
        }
    }

    /// The format being read.
    public let format: Format
    /// The caps in force.
    public let limits: Limits
    private var stream = z_stream()
    private var initialized = false
    private var ended = false
    /// Bytes consumed and produced over the whole stream (all gzip members).
    public private(set) var totalIn = 0
    /// Bytes produced so far.
    public private(set) var totalOut = 0
    /// deflate: the first byte, held until the second tells zlib from raw.
    private var heldByte: UInt8?

    /// A decompressor for `format` under `limits`.
    public init(_ format: Format, limits: Limits = Limits()) throws(InflateError) {
        self.format = format
        self.limits = limits
        if format == .gzip { try start(windowBits: 15 + 16) }
    }

    deinit {
        if initialized { inflateEnd(&stream) }
        scratch.deallocate()
    }

    /// Whether `bytes` begins with gzip's magic number (`1f 8b`), as PostHog's clients send
    /// compressed bodies without saying so.
    public static func isGzip(_ bytes: some Collection<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        return iterator.next() == 0x1f && iterator.next() == 0x8b
    }

    /// Inflates `input`, appending to `output`.
    /// - Throws: ``InflateError`` `corrupt`, `too_large` or `ratio_exceeded`; the stream is then
    ///   unusable.
    public func feed(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(InflateError) {
        guard let base = input.baseAddress, !input.isEmpty else { return }
        let bytes = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self))
        if !initialized {
            // deflate: zlib's header is CMF (low nibble 8) and FLG with (CMF·256 + FLG) % 31 == 0.
            if let first = heldByte {
                heldByte = nil
                try start(windowBits: Self.isZlibHeader(first, bytes[0]) ? 15 : -15)
                var byte = first
                try inflate(&byte, 1, into: &output)
            } else if input.count == 1 {
                heldByte = bytes[0]
                return
            } else {
                try start(windowBits: Self.isZlibHeader(bytes[0], bytes[1]) ? 15 : -15)
            }
        }
        try inflate(bytes, input.count, into: &output)
    }

    /// Inflates `bytes` (a whole body), under the same caps.
    public static func inflate(_ bytes: [UInt8], format: Format, limits: Limits = Limits()) throws(InflateError)
        -> [UInt8]
    {
        let inflater = try Inflater(format, limits: limits)
        var output: [UInt8] = []
        let fed = bytes.withUnsafeBytes { raw in
            Result { () throws(InflateError) in try inflater.feed(raw, into: &output) }
        }
        try fed.get()
        try inflater.finish()
        return output
    }

    /// Ends the stream.
    /// - Throws: ``InflateError/Code/truncated`` when it stopped before its end marker.
    public func finish() throws(InflateError) {
        if heldByte != nil || !initialized || !ended {
            throw InflateError(
                .truncated,
                "the compressed body ends early (\(totalIn) bytes read, no end of stream)"
            )
        }
    }

    private static func isZlibHeader(_ cmf: UInt8, _ flg: UInt8) -> Bool {
        cmf & 0x0f == 8 && (Int(cmf) << 8 | Int(flg)) % 31 == 0
    }

    private func start(windowBits: Int32) throws(InflateError) {
        let status = inflateInit2_(&stream, windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw InflateError(.corrupt, "zlib could not start (\(status))") }
        initialized = true
    }

    private static let chunk = 64 << 10
    /// Where zlib writes before the bytes are appended to the caller's output.
    private let scratch = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: chunk)

    private func inflate(_ input: UnsafeMutablePointer<UInt8>, _ count: Int, into output: inout [UInt8])
        throws(InflateError)
    {
        stream.next_in = input
        stream.avail_in = UInt32(count)
        defer {
            stream.next_in = nil
            stream.avail_in = 0
            stream.next_out = nil
            stream.avail_out = 0
        }
        while true {
            if ended {
                guard stream.avail_in > 0 else { return }
                // Another gzip member may follow; anything else after the end is corrupt.
                guard format == .gzip else {
                    throw InflateError(.corrupt, "data after the end of the compressed stream")
                }
                inflateReset(&stream)
                ended = false
            }
            // One byte more than the cap allows: producing it proves the cap is passed.
            let room = min(Self.chunk, limits.maxOutputBytes - totalOut + 1)
            let inBefore = Int(stream.avail_in)
            stream.next_out = scratch.baseAddress
            stream.avail_out = UInt32(room)
            let status = CZlib.inflate(&stream, Z_NO_FLUSH)
            let produced = room - Int(stream.avail_out)
            output.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[0..<produced]))
            totalOut += produced
            totalIn += inBefore - Int(stream.avail_in)
            switch status {
            case Z_STREAM_END: ended = true
            case Z_OK, Z_BUF_ERROR: break
            default:
                let reason = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                throw InflateError(.corrupt, "not valid \(format == .gzip ? "gzip" : "deflate") data (\(reason))")
            }
            if totalOut > limits.maxOutputBytes {
                throw InflateError(.tooLarge, "the body inflates to more than \(limits.maxOutputBytes) bytes")
            }
            if totalOut > limits.ratioFloor, totalOut > limits.maxRatio * max(totalIn, 1) {
                throw InflateError(
                    .ratioExceeded,
                    "the body inflates more than \(limits.maxRatio)× (\(totalIn) bytes to over \(totalOut))"
                )
            }
            // Input used up and the output not filled: zlib holds nothing back, wait for more.
            if !ended, stream.avail_in == 0, produced < room { return }
            if status == Z_BUF_ERROR, produced == 0 { return }
        }
    }
}
