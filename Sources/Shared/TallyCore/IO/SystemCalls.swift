#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `open(2)`, reachable from types that have an `open` method of their own.
package func systemOpen(_ path: String, _ flags: Int32, _ permissions: UInt16 = 0) -> Int32 {
    // UInt16, not mode_t: the C type would need a `package import` of the C library, which a release
    // build then reports as unused.
    let mode = mode_t(permissions)
    #if canImport(Darwin)
        return Darwin.open(path, flags, mode)
    #elseif canImport(Glibc)
        return Glibc.open(path, flags, mode)
    #else
        return Musl.open(path, flags, mode)
    #endif
}

/// `read(2)`, reachable from inside a method named `read`.
package func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    #if canImport(Darwin)
        Darwin.read(descriptor, buffer.baseAddress, buffer.count)
    #elseif canImport(Glibc)
        Glibc.read(descriptor, buffer.baseAddress, buffer.count)
    #else
        Musl.read(descriptor, buffer.baseAddress, buffer.count)
    #endif
}

/// The index of the first `byte` in `buffer[start...]`, or nil: `memchr(3)`, which scans 16 or 32
/// bytes at a time where a Swift loop scans one (splitting a 38 KB request body into lines took
/// 2 % of the collector's time with `firstIndex(of:)`).
package func firstIndex(of byte: UInt8, in buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
    guard let base = buffer.baseAddress, start < buffer.count else { return nil }
    guard let found = memchr(base + start, Int32(byte), buffer.count - start) else { return nil }
    return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
}
