#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A failed system call on a file, naming the operation, the path and the system's reason.
public struct IOError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `open`, `write`, `fsync`, `rename`, …
    public var operation: String
    /// The file or directory.
    public var path: String
    /// The `errno` value.
    public var errno: Int32

    /// Creates an error.
    public init(operation: String, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    public var description: String {
        "\(operation) \(path): \(String(cString: strerror(errno)))"
    }
}
