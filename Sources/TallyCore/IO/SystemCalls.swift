#if canImport(Darwin)
    package import Darwin
#elseif canImport(Glibc)
    package import Glibc
#elseif canImport(Musl)
    package import Musl
#endif

/// `open(2)`, reachable from types that have an `open` method of their own.
package func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    #if canImport(Darwin)
        Darwin.open(path, flags, mode)
    #elseif canImport(Glibc)
        Glibc.open(path, flags, mode)
    #else
        Musl.open(path, flags, mode)
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
