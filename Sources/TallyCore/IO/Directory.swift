#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Directory operations that report the system's reason (`errno`) with the path.
package enum Directory {
    /// Creates `path` and its parents (mode 0755), like `mkdir -p`.
    package static func create(_ path: String) throws(IOError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw IOError(.mkdir, path: current, errno: errno)
            }
        }
    }

    /// Creates `path` if needed and checks that files can be created in it (a read-only file
    /// system, a file in the way or missing permissions fail here, before any work is done).
    package static func checkWritable(_ path: String) throws(IOError) {
        try create(path)
        var info = stat()
        if stat(path, &info) != 0 { throw IOError(.stat, path: path, errno: errno) }
        if (info.st_mode & S_IFMT) != S_IFDIR { throw IOError(.mkdir, path: path, errno: ENOTDIR) }
        if access(path, W_OK | X_OK) != 0 { throw IOError(.access, path: path, errno: errno) }
    }
}
