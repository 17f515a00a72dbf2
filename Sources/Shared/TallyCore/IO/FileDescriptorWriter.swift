#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Writes whole buffers to file descriptors, retrying short writes and `EINTR`.
package enum FileDescriptorWriter {
    /// Writes every byte of `bytes` to `descriptor`.
    /// - Throws: ``IOError`` naming `path` when the system refuses (disk full, closed pipe, …).
    package static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(IOError) {
        let failure = bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Int32? in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure { throw IOError(.write, path: path, errno: failure) }
    }
}
