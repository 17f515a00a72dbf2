package import TallyCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension IOError: ClassifiedError {
    /// Permanent when the file system refuses the path itself (permission, read-only, not a
    /// directory); transient otherwise: a full disk can be cleaned, an I/O error can pass.
    package var errorClass: SinkErrorClass {
        switch errno {
        case EACCES, EPERM, EROFS, ENOTDIR, EISDIR, ENAMETOOLONG, ELOOP, EBADF: .permanent
        default: .transient
        }
    }

    /// The system call's name (`write`).
    public var reasonCode: String { code.description }
}
