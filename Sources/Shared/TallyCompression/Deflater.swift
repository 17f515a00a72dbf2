import CZlib

/// gzip / deflate compression of a whole buffer: what an uploader sends and what the collector's
/// tests send it.
public enum Deflater {
    /// `bytes` compressed as `format` (gzip: RFC 1952; deflate: the zlib wrapper of RFC 1950, or
    /// raw RFC 1951 with `raw: true`) at `level` (0–9).
    public static func compress(_ bytes: [UInt8], format: Inflater.Format, raw: Bool = false, level: Int32 = 6)
        -> [UInt8]
    {
        var stream = z_stream()
        let windowBits: Int32 = format == .gzip ? 15 + 16 : (raw ? -15 : 15)
        let status = deflateInit2_(
            &stream,
            level,
            Z_DEFLATED,
            windowBits,
            8,
            Z_DEFAULT_STRATEGY,
            ZLIB_VERSION,
            Int32(MemoryLayout<z_stream>.size)
        )
        precondition(status == Z_OK, "deflateInit2 failed: \(status)")
        defer { deflateEnd(&stream) }
        var input = bytes
        let bound = Int(deflateBound(&stream, UInt(bytes.count)))
        var output = [UInt8](repeating: 0, count: bound + 32)
        let written = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = UInt32(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = UInt32(outputBuffer.count)
                let result = deflate(&stream, Z_FINISH)
                precondition(result == Z_STREAM_END, "deflate did not finish: \(result)")
                return outputBuffer.count - Int(stream.avail_out)
            }
        }
        output.removeLast(output.count - written)
        return output
    }
}
