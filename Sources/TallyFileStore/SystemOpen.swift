#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `open(2)`, reachable from types that have an `open` method of their own.
func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    #if canImport(Darwin)
        Darwin.open(path, flags, mode)
    #elseif canImport(Glibc)
        Glibc.open(path, flags, mode)
    #else
        Musl.open(path, flags, mode)
    #endif
}
